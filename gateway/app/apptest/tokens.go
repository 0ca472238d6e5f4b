package apptest

import (
	"fmt"
	"time"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/identity"
)

// JWTSecret is the HS256 secret the load harness and the whole-path
// benchmarks give AccountsConfig (GATEWAY_JWT_SECRET); loopback use only.
const JWTSecret = "apptest-hs256-secret-of-32-bytes-or-more"

// Users is how many distinct callers the load harness's clients present
// tokens of: each returns thousands of times in a run, as an identity
// provider's tokens do until they expire.
const Users = 1000

// Tokens returns n HS256 tokens of JWTSecret, one per user (user0001,
// user0002, ...), each with the reader role and valid for ttl from now.
func Tokens(n int, ttl time.Duration, now time.Time) ([]string, error) {
	tokens := make([]string, n)
	for i := range tokens {
		tok, err := identity.Mint(config.JWT{Secret: JWTSecret}, UserID(i), []string{"reader"}, ttl, now)
		if err != nil {
			return nil, err
		}
		tokens[i] = tok
	}
	return tokens, nil
}

// UserID is the subject of the i-th token of Tokens.
func UserID(i int) string { return fmt.Sprintf("user%04d", i+1) }
