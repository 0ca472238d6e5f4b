package main

import (
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/identity"
)

// tokenFlags declares `gateway token`'s flags.
func tokenFlags(fs *flag.FlagSet) func(env, []string) int {
	path := configFlag(fs)
	sub := fs.String("sub", "", "the token's subject: the caller's `user` id (required)")
	roles := fs.String("roles", "", "comma-separated `roles` of the caller (routes' roles check them)")
	ttl := fs.Duration("ttl", time.Hour, "how long the token is valid")
	return func(e env, _ []string) int {
		if *sub == "" {
			fmt.Fprintln(e.stderr, "gateway token: -sub is required (the caller's user id)")
			return exitUsage
		}
		cfg, err := config.Load(*path, e.getenv)
		if err != nil {
			printFailure(e.stderr, *path, err)
			return exitFailure
		}
		jwtCfg := cfg.Auth.JWT
		if jwtCfg.Secret == "" {
			fmt.Fprintf(e.stderr, "gateway token: %s has no HS256 secret (auth.jwt.secret, from GATEWAY_JWT_SECRET); "+
				"tokens for a JWKS are minted by their identity provider\n", *path)
			return exitFailure
		}
		if len(jwtCfg.Secret) < 32 {
			fmt.Fprintln(e.stderr, "gateway token: auth.jwt.secret must be at least 32 bytes for HS256, as the gateway requires")
			return exitFailure
		}
		if cfg.Auth.Mode != config.AuthJWT {
			fmt.Fprintf(e.stderr, "gateway token: note: auth.mode is %s, so the gateway does not read tokens "+
				"until it is jwt (GATEWAY_AUTH_MODE=jwt)\n", cfg.Auth.Mode)
		}
		var list []string
		for r := range strings.SplitSeq(*roles, ",") {
			if r = strings.TrimSpace(r); r != "" {
				list = append(list, r)
			}
		}
		tok, err := identity.Mint(jwtCfg, *sub, list, *ttl, time.Now())
		if err != nil {
			fmt.Fprintf(e.stderr, "gateway token: %v\n", err)
			return exitFailure
		}
		fmt.Fprintln(e.stdout, tok)
		return exitOK
	}
}
