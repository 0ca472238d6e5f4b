package accounts

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/restgate/gateway/upstreams"
)

// Paging says who makes a page of the account list.
type Paging string

const (
	// PagingBackend: the backend pages. The adapter sends ?limit=&offset=
	// and answers what comes back; a backend that answers more records
	// than the limit does not page, and the list fails instead of lying.
	PagingBackend Paging = "backend"
	// PagingAdapter: the backend lists everything (the original account
	// controller ignores limit and offset). The adapter fetches the whole
	// list and cuts the page itself, always applying the offset, and knows
	// the total.
	PagingAdapter Paging = "adapter"
)

// UpdateMode says what an update of some fields sends to the backend.
type UpdateMode string

const (
	// UpdateReplace sends the fields the client sent: for a backend that
	// changes only the fields it is given.
	UpdateReplace UpdateMode = "replace"
	// UpdateMerge reads the account, merges the fields the client sent
	// into it and sends the whole record: for a backend that replaces the
	// account with the body it is given (the original controller binds a
	// whole account, so the fields not sent would be wiped).
	UpdateMerge UpdateMode = "merge"
)

// Option keys of an accounts upstream (upstreams.<name>.options).
const (
	OptionPaging = "paging"
	OptionUpdate = "update"
)

// Options are what the adapter must know of its backend's behaviour,
// configured per upstream (upstreams.<name>.options; a change takes effect
// on reload, which builds the upstream's client anew). The zero value is
// the defaults.
type Options struct {
	// Paging: PagingBackend or PagingAdapter. Default PagingAdapter, which
	// is correct against any backend (at the cost of fetching the whole
	// list for every page).
	Paging Paging
	// Update: UpdateMerge or UpdateReplace. Default UpdateMerge, which
	// never wipes a field the client did not send.
	Update UpdateMode
}

func (o Options) withDefaults() Options {
	if o.Paging == "" {
		o.Paging = PagingAdapter
	}
	if o.Update == "" {
		o.Update = UpdateMerge
	}
	return o
}

// ParseOptions reads an accounts upstream's options strictly: paging
// (backend | adapter) and update (merge | replace); an unknown key or
// value is an error whose Path is the key, so that the caller can report
// it under upstreams.<name>.options. Absent keys take their defaults.
func ParseOptions(m map[string]string) (Options, []*upstreams.FieldError) {
	var o Options
	var errs []*upstreams.FieldError
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		switch k {
		case OptionPaging:
			o.Paging = Paging(v)
			if o.Paging != PagingBackend && o.Paging != PagingAdapter {
				errs = append(errs, &upstreams.FieldError{Path: k, Problem: fmt.Sprintf("must be backend or adapter, not %q", v)})
			}
		case OptionUpdate:
			o.Update = UpdateMode(v)
			if o.Update != UpdateMerge && o.Update != UpdateReplace {
				errs = append(errs, &upstreams.FieldError{Path: k, Problem: fmt.Sprintf("must be merge or replace, not %q", v)})
			}
		default:
			errs = append(errs, &upstreams.FieldError{Path: k,
				Problem: "unknown option of an accounts upstream; known: " + strings.Join([]string{OptionPaging, OptionUpdate}, ", ")})
		}
	}
	if len(errs) > 0 {
		return Options{}, errs
	}
	return o.withDefaults(), nil
}
