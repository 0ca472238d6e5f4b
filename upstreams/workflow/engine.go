package workflow

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/restgate/gateway/upstreams"
	"github.com/restgate/gateway/upstreams/workflow/restvar"
)

// enginePath is the engine's info resource (ProcessEngineResource), which
// answers {"name", "resourceUrl", "exception", "version"}.
const enginePath = "/management/engine"

const (
	// readTimeout bounds one read of the engine's version. It runs apart
	// from the calls waiting for it, so that one caller leaving does not
	// fail the others.
	readTimeout = 10 * time.Second
	// maxAge is how long a version read is trusted without anything
	// happening to the engine: long enough that the read costs nothing,
	// short enough that an engine upgraded without a failed call is seen.
	maxAge = 10 * time.Minute
	// freshFor is how young a version read may be for the engine's refusal
	// of a type not to make the adapter read it again: the engine then
	// contradicts what it just said, and reading it again per refused call
	// would let a client double the calls it causes.
	freshFor = 10 * time.Second
)

// engine is what the adapter knows of the engine's version, shared by
// every call of one Client: pinned, or read from GET /management/engine
// when a call first needs it and read again after the engine was lost
// (see Client).
type engine struct {
	pinned bool
	conv   restvar.Converters // the pinned converters, or the last read
	name   string
	logger *slog.Logger
	now    func() time.Time
	reads  singleflight.Group

	mu     sync.Mutex
	readAt time.Time // zero: not known, or lost since
	seen   bool      // a version was read once
	warned bool      // the hidden version was logged
}

func newEngine(o Options) *engine {
	e := &engine{name: o.Name, logger: o.Logger, now: o.Now}
	if e.name == "" {
		e.name = Upstream
	}
	if e.logger == nil {
		e.logger = slog.New(slog.DiscardHandler)
	}
	if e.now == nil {
		e.now = time.Now
	}
	if !o.EngineVersion.IsZero() {
		e.pinned, e.conv = true, restvar.For(o.EngineVersion)
	}
	return e
}

// known returns the converters while they are trusted.
func (e *engine) known() (restvar.Converters, bool) {
	if e.pinned {
		return e.conv, true
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.readAt.IsZero() || e.now().Sub(e.readAt) >= maxAge {
		return restvar.Converters{}, false
	}
	return e.conv, true
}

// lost forgets the version, unless it is pinned or was read within
// youngerThan: the next call that needs it reads it again.
func (e *engine) lost(youngerThan time.Duration) bool {
	if e.pinned {
		return false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.readAt.IsZero() && e.now().Sub(e.readAt) < youngerThan {
		return false
	}
	e.readAt = time.Time{}
	return true
}

// learn keeps what a read found; hidden says why the engine gave no
// version, "" when it did.
func (e *engine) learn(conv restvar.Converters, hidden string) {
	e.mu.Lock()
	changed := !e.seen || e.conv.Version() != conv.Version()
	warn := hidden != "" && !e.warned
	e.conv, e.readAt, e.seen = conv, e.now(), true
	e.warned = e.warned || warn
	e.mu.Unlock()
	switch {
	case warn:
		e.logger.Warn("the workflow engine's version is unknown: variables are sent with the types every engine converts "+
			"(decimals as doubles, objects as strings); pin it with upstreams."+e.name+".options."+OptionEngineVersion,
			"upstream", e.name, "reason", hidden, "types", conv.Types())
	case changed && hidden == "":
		e.logger.Info("workflow engine version read", "upstream", e.name, "version", conv.String(), "types", conv.Types())
	}
}

// Converters returns the variable types of the engine: the pinned
// version's, the version's read less than ten minutes ago and not lost
// since, or else the version's read now from GET /management/engine. An
// engine that hides the resource (any 4xx, the gateway's credentials
// refused included) or answers no version is given the types every engine
// converts (restvar.Oldest), and a warning is logged once. An engine that
// cannot be reached is the call's error, and nothing is kept. Concurrent
// callers share one read; each stops waiting when its ctx ends.
func (c *Client) Converters(ctx context.Context) (restvar.Converters, error) {
	if conv, ok := c.engine.known(); ok {
		return conv, nil
	}
	ch := c.engine.reads.DoChan("version", func() (any, error) { return c.readEngine() })
	select {
	case r := <-ch:
		if r.Err != nil {
			return restvar.Converters{}, r.Err
		}
		return r.Val.(restvar.Converters), nil
	case <-ctx.Done():
		return restvar.Converters{}, upstreams.TransportError(ctx, Upstream, ctx.Err())
	}
}

// readEngine reads the engine's version, apart from any one caller's
// context: GET /management/engine carries no caller's state.
func (c *Client) readEngine() (restvar.Converters, error) {
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	body, err := c.call(ctx, http.MethodGet, enginePath, nil, nil, nil)
	conv, hidden, err := engineInfo(body, err)
	if err != nil {
		return restvar.Converters{}, err
	}
	c.engine.learn(conv, hidden)
	return conv, nil
}

// engineInfo reads the answer to GET /management/engine: the converters
// of the version it names, or restvar.Oldest and why there is no version.
// A failure that is not the engine's answer is returned as it is.
func engineInfo(body []byte, err error) (conv restvar.Converters, hidden string, _ error) {
	if err != nil {
		ue := upstreams.AsError(err)
		if ue == nil {
			return conv, "", err
		}
		switch ue.Kind {
		case upstreams.KindRejected, upstreams.KindCredentials, upstreams.KindRetired:
			return restvar.Oldest(), fmt.Sprintf("GET %s answered %d (%s)", enginePath, ue.Status, ue.Message), nil
		}
		return conv, "", err
	}
	var info struct {
		Version *string `json:"version"`
	}
	if json.Unmarshal(body, &info) != nil {
		return restvar.Oldest(), fmt.Sprintf("the answer to GET %s is not the engine's info", enginePath), nil
	}
	if info.Version == nil || strings.TrimSpace(*info.Version) == "" {
		return restvar.Oldest(), fmt.Sprintf("GET %s answered no version", enginePath), nil
	}
	v, perr := restvar.ParseVersion(*info.Version)
	if perr != nil {
		return restvar.Oldest(), fmt.Sprintf("GET %s answered %v", enginePath, perr), nil
	}
	return restvar.For(v), "", nil
}

// lostOn forgets the engine's version when err says the engine was lost,
// and returns err: no answer at all (connection refused or reset), the
// breaker open, or a proxy in front of the engine answering for it (502,
// 503, 504). The engine that answers next may be another version.
func (c *Client) lostOn(err error) error {
	ue := upstreams.AsError(err)
	if ue == nil {
		return err
	}
	switch {
	case ue.Kind == upstreams.KindOpen,
		ue.Kind == upstreams.KindFailed && (ue.Status == 0 || ue.Status == http.StatusBadGateway || ue.Status == http.StatusGatewayTimeout),
		ue.Kind == upstreams.KindLimited && ue.Status == http.StatusServiceUnavailable:
		c.engine.lost(0)
	}
	return err
}

// unsupportedType reports the engine's refusal of a variable's type
// (RestResponseFactory.getVariableValue: FlowableIllegalArgumentException
// "Variable 'x' has unsupported type: 'y'.", a 400).
func unsupportedType(err error) bool {
	ue := upstreams.AsError(err)
	return ue != nil && ue.Kind == upstreams.KindRejected && ue.Status == http.StatusBadRequest &&
		strings.Contains(ue.Message, "has unsupported type: '")
}
