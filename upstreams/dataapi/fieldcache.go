package dataapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/restgate/gateway/upstreams"
)

const (
	// defaultFieldTTL is how long a describe stays cached when
	// NewFieldCache is given no TTL.
	defaultFieldTTL = 5 * time.Minute
	// maxNotFoundTTL bounds how long "no such type" is remembered, so a type
	// created on the backend shows up soon.
	maxNotFoundTTL = 10 * time.Second
	// defaultMaxTypes caps the cached types: the gateway asks only for the
	// types its routes name, but a caller choosing the type must not be able
	// to grow the cache without bound.
	defaultMaxTypes = 256
	// fetchTimeout bounds a shared describe call when the Doer sets no
	// timeout of its own.
	fetchTimeout = 30 * time.Second
)

// FieldCache keeps the field names of each type's describe. However many
// goroutines ask for the same type at once, one describe call is made and
// all share its answer. Answers are kept for the TTL; "no such type" (404)
// for at most 10 seconds; other failures not at all. At most 256 types are
// kept. Safe for concurrent use.
type FieldCache struct {
	client      *Client
	ttl         time.Duration
	notFoundTTL time.Duration
	maxTypes    int
	now         func() time.Time
	// onWait, when set (by tests), runs each time a caller starts waiting
	// for a describe.
	onWait func()

	mu      sync.Mutex
	entries map[string]*fieldEntry
}

// fieldEntry is one type's describe, loading until ready is closed; then
// names or err is set and never changes.
type fieldEntry struct {
	ready   chan struct{}
	done    bool
	names   *Names
	err     error
	expires time.Time
}

// Names are the names a record of one type can carry, from one describe:
// its fields in describe order, then its relationship names (a reference
// field's relationshipName, such as Owner for OwnerId or Foo__r for Foo__c,
// and each childRelationships entry's, such as Contacts). A *Names is
// shared and never changes: a new describe gives a new one.
type Names struct {
	Fields        []string
	Relationships []string
}

// All is Fields then Relationships, in a new slice.
func (n *Names) All() []string {
	return append(append(make([]string, 0, len(n.Fields)+len(n.Relationships)), n.Fields...), n.Relationships...)
}

// NewFieldCache returns a cache of c's describes kept for ttl (default five
// minutes when ttl <= 0).
func NewFieldCache(c *Client, ttl time.Duration) *FieldCache {
	if ttl <= 0 {
		ttl = defaultFieldTTL
	}
	return &FieldCache{
		client:      c,
		ttl:         ttl,
		notFoundTTL: min(ttl, maxNotFoundTTL),
		maxTypes:    defaultMaxTypes,
		now:         time.Now,
		entries:     make(map[string]*fieldEntry),
	}
}

// Fields returns the field names of type typ in describe order. The slice is
// the caller's own. An unknown type is the backend's *upstreams.Error (404);
// a caller whose ctx ends stops waiting, while the shared call goes on for
// the others.
func (f *FieldCache) Fields(ctx context.Context, typ string) ([]string, error) {
	n, err := f.Names(ctx, typ)
	if err != nil {
		return nil, err
	}
	return slices.Clone(n.Fields), nil
}

// Names returns the field and relationship names of type typ, shared (see
// Names), with Fields' errors.
func (f *FieldCache) Names(ctx context.Context, typ string) (*Names, error) {
	if !validName(typ) {
		return nil, invalidType(typ)
	}
	f.mu.Lock()
	e := f.entries[typ]
	if e != nil && e.done && !f.now().Before(e.expires) {
		delete(f.entries, typ)
		e = nil
	}
	if e == nil {
		if !f.makeRoom() {
			f.mu.Unlock()
			// Every slot is a describe in flight: answer without caching
			// rather than grow past the cap.
			return f.fetch(ctx, typ)
		}
		e = &fieldEntry{ready: make(chan struct{})}
		f.entries[typ] = e
		go f.load(ctx, typ, e)
	}
	f.mu.Unlock()
	if f.onWait != nil {
		f.onWait()
	}
	select {
	case <-e.ready:
		if e.err != nil {
			return nil, e.err
		}
		return e.names, nil
	case <-ctx.Done():
		return nil, upstreams.TransportError(ctx, Upstream, ctx.Err())
	}
}

// load makes the shared describe call. It runs detached from the first
// caller's cancellation (keeping its values: trace, timing) so that one
// caller going away does not fail the others.
func (f *FieldCache) load(ctx context.Context, typ string, e *fieldEntry) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fetchTimeout)
	defer cancel()
	names, err := f.fetch(ctx, typ)
	f.mu.Lock()
	e.names, e.err, e.done = names, err, true
	now := f.now()
	switch ue := upstreams.AsError(err); {
	case err == nil:
		e.expires = now.Add(f.ttl)
	case ue != nil && ue.Status == http.StatusNotFound:
		e.expires = now.Add(f.notFoundTTL)
	default:
		if f.entries[typ] == e {
			delete(f.entries, typ)
		}
	}
	f.mu.Unlock()
	close(e.ready)
}

// makeRoom frees a slot when the cache is full: expired entries first, then
// the answered entry closest to expiry. It reports false when every entry is
// still loading. f.mu must be held.
func (f *FieldCache) makeRoom() bool {
	if len(f.entries) < f.maxTypes {
		return true
	}
	now := f.now()
	var oldest string
	var oldestExp time.Time
	for typ, e := range f.entries {
		if !e.done {
			continue
		}
		if !now.Before(e.expires) {
			delete(f.entries, typ)
			continue
		}
		if oldest == "" || e.expires.Before(oldestExp) {
			oldest, oldestExp = typ, e.expires
		}
	}
	if len(f.entries) < f.maxTypes {
		return true
	}
	if oldest == "" {
		return false
	}
	delete(f.entries, oldest)
	return true
}

// fetch calls describe and reads its field and relationship names.
func (f *FieldCache) fetch(ctx context.Context, typ string) (*Names, error) {
	body, err := f.client.Describe(ctx, typ)
	if err != nil {
		return nil, err
	}
	var d struct {
		Fields []struct {
			Name             string  `json:"name"`
			RelationshipName *string `json:"relationshipName"`
		} `json:"fields"`
		ChildRelationships []struct {
			RelationshipName *string `json:"relationshipName"`
		} `json:"childRelationships"`
	}
	if err := json.Unmarshal(body, &d); err != nil {
		return nil, &upstreams.Error{Upstream: Upstream, Kind: upstreams.KindInvalid,
			Message: "describe is not an object with fields", Err: err}
	}
	n := &Names{Fields: make([]string, 0, len(d.Fields))}
	seen := make(map[string]bool, len(d.Fields))
	for _, fd := range d.Fields {
		if fd.Name == "" {
			return nil, &upstreams.Error{Upstream: Upstream, Kind: upstreams.KindInvalid,
				Message: "describe has a field without a name", Err: errors.New("empty field name")}
		}
		n.Fields = append(n.Fields, fd.Name)
		seen[fd.Name] = true
	}
	addRelationship := func(name *string) {
		// A child relationship without a name cannot be queried, so its
		// records never appear in an answer.
		if name != nil && *name != "" && !seen[*name] {
			seen[*name] = true
			n.Relationships = append(n.Relationships, *name)
		}
	}
	for _, fd := range d.Fields {
		addRelationship(fd.RelationshipName)
	}
	for _, c := range d.ChildRelationships {
		addRelationship(c.RelationshipName)
	}
	return n, nil
}
