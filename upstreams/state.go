package upstreams

import "time"

// State is what a client is doing now, for the operator's console. It
// never holds a credential.
type State struct {
	// Breaker is "closed", "half-open" or "open".
	Breaker string
	// Limit is the calls in flight the concurrency limit allows now;
	// Adaptive says whether it follows the backend's latency.
	Limit    int
	Adaptive bool
	// InFlight are the calls sent and not finished; Waiting those queued
	// for a slot.
	InFlight, Waiting int
	// Token is the state of the OAuth access token; nil without OAuth.
	Token *TokenState
}

// TokenState is an OAuth token source's state: never the token.
type TokenState struct {
	// Flow is the OAuth flow (jwt-bearer, client-credentials,
	// refresh-token).
	Flow string
	// Held says whether a token is held now.
	Held bool
	// Expiry is the held token's expiry as the token endpoint stated it;
	// zero when it stated none (the token is kept until refused).
	Expiry time.Time
	// Refreshed is when the last token was obtained; zero before the first.
	Refreshed time.Time
	// LastError is why the last request to the token endpoint failed, ""
	// when it succeeded (or none was made). It names the reason, never a
	// secret.
	LastError string
	// LastErrorAt is when it failed.
	LastErrorAt time.Time
}

// State reports what the client is doing now.
func (c *Client) State() State {
	limit, inFlight, waiting := c.limit.current()
	s := State{Breaker: c.breaker.state(), Limit: limit, Adaptive: c.limit.adaptive, InFlight: inFlight, Waiting: waiting}
	if c.tokens != nil {
		t := c.tokens.State()
		s.Token = &t
	}
	return s
}

// State reports the token source's state.
func (t *Tokens) State() TokenState {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := TokenState{Flow: t.flow, Held: t.cur != nil, Refreshed: t.refreshed, LastError: t.lastErr, LastErrorAt: t.lastErrAt}
	if t.cur != nil {
		s.Expiry = t.cur.expiry
	}
	return s
}
