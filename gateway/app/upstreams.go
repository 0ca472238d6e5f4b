package app

import (
	"fmt"
	"reflect"
	"sync"

	"github.com/restgate/gateway/upstreams"
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
	mu       sync.Mutex
	clients  map[string]*upstreams.Client
	observer upstreams.Observer
	sandbox  func(name, flavour string) (string, error)
}

// NewUpstreamSet returns an empty set. sandbox resolves the base URL of an
// upstream whose url is "sandbox" or "sandbox:<flavour>" (flavour "" for
// the first), starting the sandbox when needed.
func NewUpstreamSet(obs upstreams.Observer, sandbox func(name, flavour string) (string, error)) *UpstreamSet {
	return &UpstreamSet{clients: make(map[string]*upstreams.Client), observer: obs, sandbox: sandbox}
}

// Resolve returns the upstreams of cfg, reusing unchanged clients. Clients
// no longer configured, or replaced, are closed once nothing new uses them;
// requests still running on them finish (Close only drops idle connections).
func (s *UpstreamSet) Resolve(cfg map[string]upstreams.Settings) (map[string]Upstream, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
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
		c, ok := s.clients[name]
		if !ok || !reflect.DeepEqual(c.Settings(), settings) {
			var err error
			if c, err = upstreams.NewClient(name, settings, s.observer); err != nil {
				return nil, err
			}
			if st, ok := s.observer.(breakerStateSetter); ok {
				st.SetBreakerState(name, c.BreakerState())
			}
		}
		next[name] = c
		out[name] = Upstream{Client: c, BaseURL: base}
	}
	for name, old := range s.clients {
		if next[name] != old {
			old.Close()
		}
	}
	s.clients = next
	return out, nil
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
