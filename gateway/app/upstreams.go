package app

import (
	"fmt"
	"reflect"
	"slices"
	"sync"

	"github.com/restgate/gateway/gateway/allowance"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/upstreams"
	"github.com/restgate/gateway/upstreams/dataapi"
	"github.com/restgate/gateway/upstreams/workflow"
)

// Upstream is a configured backend: the shared client every call goes
// through, and the base URL adapters append their contract's paths to.
type Upstream struct {
	Client  *upstreams.Client
	BaseURL string
}

// UpstreamSet keeps the upstream clients across reloads: a client whose
// settings did not change is reused, with its breaker state and its pooled
// connections. Safe for concurrent use.
type UpstreamSet struct {
	mu      sync.Mutex
	clients map[string]*upstreams.Client
	// refusals names the BusinessRefusal each client was built with (a
	// route kind), so that a client whose routes changed kind is rebuilt.
	refusals map[string]string
	// tokens are the OAuth token sources, one per distinct OAuth settings,
	// kept across reloads like the clients.
	tokens   []sharedTokens
	observer upstreams.Observer
	sandbox  func(name, flavour string) (string, error)
}

// sharedTokens is one token source and the settings it was built from.
type sharedTokens struct {
	oauth  upstreams.OAuthSettings
	tokens *upstreams.Tokens
}

// NewUpstreamSet returns an empty set. sandbox resolves the base URL of an
// upstream whose url is "sandbox" or "sandbox:<flavour>" (flavour "" for
// the first), starting the sandbox when needed.
func NewUpstreamSet(obs upstreams.Observer, sandbox func(name, flavour string) (string, error)) *UpstreamSet {
	return &UpstreamSet{clients: make(map[string]*upstreams.Client), refusals: make(map[string]string),
		observer: obs, sandbox: sandbox}
}

// Resolve returns the upstreams of cfg, reusing unchanged clients. Clients
// no longer configured, or replaced, are closed once nothing new uses them;
// requests still running on them finish (Close only drops idle connections).
// No 403 of these upstreams is a business refusal; ResolveFor says which are.
func (s *UpstreamSet) Resolve(cfg map[string]upstreams.Settings) (map[string]Upstream, error) {
	return s.ResolveFor(cfg, nil, nil)
}

// ResolveFor is Resolve with, per upstream name, the kind of route whose
// BusinessRefusal (businessRefusals) its client uses (an upstream not named
// has none), and the allowance guards the clients of data and files
// upstreams, and of upstreams with an allowance configured, consult (nil:
// none).
func (s *UpstreamSet) ResolveFor(cfg map[string]upstreams.Settings, refusalKinds map[string]string,
	guards *allowance.Set) (map[string]Upstream, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tokens := s.tokens[:0:0]
	out := make(map[string]Upstream, len(cfg))
	next := make(map[string]*upstreams.Client, len(cfg))
	for name, settings := range cfg {
		base := settings.URL
		if flavour, ok := upstreams.SandboxFlavour(base); ok {
			u, err := s.sandbox(name, flavour)
			if err != nil {
				return nil, fmt.Errorf("upstreams.%s.url: %w", name, err)
			}
			base = u
		}
		kind := refusalKinds[name]
		c, ok := s.clients[name]
		if !ok || !reflect.DeepEqual(c.Settings().WithoutCache(), settings.WithoutCache()) || s.refusals[name] != kind {
			opts := []upstreams.Option{upstreams.WithBusinessRefusal(businessRefusals()[kind])}
			if guards != nil && guarded(kind, settings) {
				opts = append(opts, upstreams.WithAllowance(guards.Guard(name, settings.Allowance)))
			}
			if o := settings.Auth.OAuth; o.Flow != "" {
				t, err := s.tokensOf(name, o, settings, &tokens)
				if err != nil {
					return nil, err
				}
				opts = append(opts, upstreams.WithTokens(t))
			}
			var err error
			if c, err = upstreams.NewClient(name, settings, s.observer, opts...); err != nil {
				return nil, err
			}
			if st, ok := s.observer.(breakerStateSetter); ok {
				st.SetBreakerState(name, c.BreakerState())
			}
		}
		next[name] = c
		s.refusals[name] = kind
		out[name] = Upstream{Client: c, BaseURL: base}
	}
	for _, st := range s.tokens {
		// Sources of kept clients stay; the others are dropped.
		if !slices.ContainsFunc(tokens, func(k sharedTokens) bool { return k.tokens == st.tokens }) && s.inUse(st.oauth, cfg) {
			tokens = append(tokens, st)
		}
	}
	s.tokens = tokens
	for name, old := range s.clients {
		if next[name] != old {
			old.Close()
		}
	}
	s.clients = next
	return out, nil
}

// tokensOf returns the token source of the OAuth settings o (of upstream
// name), shared with every upstream of equal settings: the one already
// built, or a new one added to built.
func (s *UpstreamSet) tokensOf(name string, o upstreams.OAuthSettings, settings upstreams.Settings, built *[]sharedTokens) (*upstreams.Tokens, error) {
	for _, st := range *built {
		if reflect.DeepEqual(st.oauth, o) {
			return st.tokens, nil
		}
	}
	for _, st := range s.tokens {
		if reflect.DeepEqual(st.oauth, o) {
			*built = append(*built, st)
			return st.tokens, nil
		}
	}
	t, err := upstreams.NewTokens(name, o, settings)
	if err != nil {
		return nil, err
	}
	*built = append(*built, sharedTokens{oauth: o, tokens: t})
	return t, nil
}

// inUse reports whether an upstream of cfg has the OAuth settings o.
func (*UpstreamSet) inUse(o upstreams.OAuthSettings, cfg map[string]upstreams.Settings) bool {
	for _, st := range cfg {
		if reflect.DeepEqual(st.Auth.OAuth, o) {
			return true
		}
	}
	return false
}

// Client returns the current client of an upstream, or nil.
func (s *UpstreamSet) Client(name string) *upstreams.Client {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clients[name]
}

// breakerStateSetter is implemented by observers that export the breaker
// state, so a new client's state is visible before its first transition.
type breakerStateSetter interface {
	SetBreakerState(upstream, state string)
}

// businessRefusals says, per route kind, which 403s of the backend behind
// it refuse a request for a reason of the business (the record or task the
// caller chose) rather than the gateway's credentials: those keep their 403
// and are not counted by the breaker (upstreams.ClassifyStatus). A kind
// without an entry has none: every 403 of its backend is CALLOUT_FAILED 502.
func businessRefusals() map[string]upstreams.BusinessRefusal {
	return map[string]upstreams.BusinessRefusal{
		config.KindData:  dataapi.BusinessRefusal,
		config.KindFiles: dataapi.BusinessRefusal,
		// Flowable's FlowableForbiddenException: a task the user may not
		// act on.
		config.KindWorkflow: workflow.BusinessRefusal,
	}
}

// refusalKinds names, per upstream of cfg, the route kind whose
// BusinessRefusal its client uses: the first route of a kind that has one.
func refusalKinds(cfg *config.Config) map[string]string {
	known := businessRefusals()
	out := make(map[string]string)
	for _, r := range cfg.Routes {
		if _, ok := known[r.Kind]; ok && r.Upstream != "" && out[r.Upstream] == "" {
			out[r.Upstream] = r.Kind
		}
	}
	return out
}
