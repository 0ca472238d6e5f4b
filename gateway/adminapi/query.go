package adminapi

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/restgate/gateway/gateway/activity"
	"github.com/restgate/gateway/gateway/envelope"
)

// maxLimit bounds the limit parameter.
const maxLimit = 1000

// query is an operation's query, checked: only the parameters it takes,
// each at most once.
type query struct{ v url.Values }

func parseQuery(r *http.Request, allowed ...string) (query, error) {
	v, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return query{}, invalid("query", "is not a valid query string")
	}
	for name, values := range v {
		if !slices.Contains(allowed, name) {
			return query{}, invalid(name, "is not a parameter of this operation")
		}
		if len(values) > 1 {
			return query{}, invalid(name, "is given more than once")
		}
	}
	return query{v}, nil
}

func noQuery(r *http.Request) error {
	_, err := parseQuery(r)
	return err
}

// window is the window parameter, 15m when absent.
func (q query) window() (activity.Window, error) {
	name := q.v.Get("window")
	if name == "" {
		name = "15m"
	}
	w, err := activity.WindowNamed(name)
	if err != nil {
		return w, invalid("window", err.Error())
	}
	return w, nil
}

// limit is the limit parameter, def when absent.
func (q query) limit(def int) (int, error) {
	s := q.v.Get("limit")
	if s == "" && !q.v.Has("limit") {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > maxLimit {
		return 0, invalid("limit", fmt.Sprintf("must be a number from 1 to %d", maxLimit))
	}
	return n, nil
}

func invalid(param, problem string) error {
	return &apiError{envelope.ParameterInvalid, http.StatusBadRequest, param + ": " + problem}
}
