package data

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/gateway/router"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/mapping"
	"github.com/restgate/gateway/upstreams"
	"github.com/restgate/gateway/upstreams/dataapi"
)

// Upstream options a Backend reads (config upstreams.<name>.options).
const (
	// OptionAPIVersion is the data API version spoken ("v62.0"), used by
	// every route of the upstream, proxy routes included ({apiVersion} in
	// their upstreamPath).
	OptionAPIVersion = "apiVersion"
	// DefaultAPIVersion is used when the option is not set.
	DefaultAPIVersion = "v62.0"
)

// Backend is one data upstream as the handlers use it: the adapter client,
// the cache of describes and the key maps built from them. It is also the
// settings.KeyMapSource of /settings/model, so the model listing and the
// query mapping share one describe and one map per type. Safe for
// concurrent use.
type Backend struct {
	client *dataapi.Client
	fields *dataapi.FieldCache
	logger *slog.Logger

	mu   sync.Mutex
	maps map[mapKey]*builtMap
}

type mapKey struct{ typ, version string }

// builtMap is a key map and what it was built from: a new describe or
// another model rebuilds it.
type builtMap struct {
	names *dataapi.Names
	model *routes.Model
	km    *mapping.KeyMap
}

// NewBackend returns the Backend of the data API at baseURL sending through
// doer, with the upstream's options (apiVersion, default v62.0). Describes
// are cached for fieldTTL (0: the cache's default of five minutes). logger
// receives the tie-breaks of colliding derived names; nil discards them.
func NewBackend(baseURL string, options map[string]string, doer upstreams.Doer, fieldTTL time.Duration, logger *slog.Logger) (*Backend, error) {
	version := options[OptionAPIVersion]
	if version == "" {
		version = DefaultAPIVersion
	}
	c, err := dataapi.New(baseURL, version, doer)
	if err != nil {
		return nil, err
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Backend{client: c, fields: dataapi.NewFieldCache(c, fieldTTL), logger: logger, maps: make(map[mapKey]*builtMap)}, nil
}

// APIVersion is the configured API version ("v62.0").
func (b *Backend) APIVersion() string { return b.client.Version() }

// Limits reads the org's API usage from its limits resource (one call of
// the allowance): the allowance's idle poll.
func (b *Backend) Limits(ctx context.Context) (upstreams.Usage, error) { return b.client.Limits(ctx) }

// Fields returns the field names of type typ from its describe, cached: one
// upstream call however many requests ask at once. An unknown type is the
// backend's *upstreams.Error with status 404.
func (b *Backend) Fields(ctx context.Context, typ string) ([]string, error) {
	return b.fields.Fields(ctx, typ)
}

// KeyMap returns the key map of records of type typ for version: every
// field and relationship name of the type's describe (Owner, Contacts,
// Foo__r) with its derived name, the declared model's names (model, may be
// nil) winning, and colliding derived names shared out by
// mapping.DeriveKeyMapWith's tie-break (logged at warning once per built
// map). A declared model whose describe fails is mapped by its declared
// map alone. An unknown type is the backend's 404 *upstreams.Error.
func (b *Backend) KeyMap(ctx context.Context, typ, version string, model *routes.Model) (*mapping.KeyMap, error) {
	names, err := b.fields.Names(ctx, typ)
	if err != nil {
		if model != nil {
			return model.Maps[version], nil
		}
		return nil, err
	}
	key := mapKey{typ, version}
	b.mu.Lock()
	defer b.mu.Unlock()
	if m := b.maps[key]; m != nil && m.names == names && m.model == model {
		return m.km, nil
	}
	var fixed map[string]string
	if model != nil {
		fixed = model.Maps[version].Pairs()
	}
	km, breaks, err := mapping.DeriveKeyMapWith(names.All(), fixed)
	if err != nil {
		return nil, envelope.Wrap(envelope.SerializationFailed, err, "the field names of "+typ+" cannot be mapped")
	}
	if len(breaks) > 0 {
		list := make([]string, len(breaks))
		for i, tb := range breaks {
			list[i] = tb.String()
		}
		b.logger.Warn("derived field names collide: tie-breaks applied (override with models.<type>.versions.<version>.mapKeys)",
			"type", typ, "version", version, "tiebreaks", list)
	}
	if len(b.maps) >= maxBuiltMaps {
		clear(b.maps)
	}
	b.maps[key] = &builtMap{names: names, model: model, km: km}
	return km, nil
}

// maxBuiltMaps bounds the built maps: types times versions, which a caller
// choosing types can grow only as far as the describe cache lets it.
const maxBuiltMaps = 1024

// CheckVersion checks the configured API version against the backend's
// list and logs what an operator must hear (not offered, retired, announced
// for retirement) at warning; a failed check is logged too. Run at start
// and on reload, in the background.
func (b *Backend) CheckVersion(ctx context.Context, upstream string) {
	warnings, err := b.client.CheckVersion(ctx)
	if err != nil {
		b.logger.Warn("could not check the data API version", "upstream", upstream, "apiVersion", b.APIVersion(), "err", err)
		return
	}
	for _, w := range warnings {
		b.logger.Warn(w, "upstream", upstream, "apiVersion", b.APIVersion())
	}
}

// Backends returns a resolver that calls build once per upstream name and
// hands out that Backend (or that error) from then on, so that every route
// of an upstream shares one describe cache. New wants such a resolver.
func Backends(build router.Resolver[*Backend]) router.Resolver[*Backend] {
	return router.Shared(build)
}

// isNotFound reports the backend's 404.
func isNotFound(err error) bool {
	ue := upstreams.AsError(err)
	return ue != nil && ue.Status == http.StatusNotFound
}
