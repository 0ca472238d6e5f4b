package cluster

import (
	"context"
	"strconv"
	"time"

	"github.com/restgate/gateway/gateway/allowance"
)

// OpAllowance is the op label of the allowance's calls to Redis.
const OpAllowance = "allowance"

// allowanceTTL is how long Redis keeps an org's state no replica
// updated: a day past the window it describes.
const allowanceTTL = 48 * time.Hour

// saveAllowanceSource merges an observation into an org's state, a hash of
// used, limit, at (microseconds of Redis's clock, so replicas' clocks never
// matter) and exceeded, by allowance.Guard's rule: within the merge window
// of the stored observation the higher usage wins and a trip stays; past
// it the new observation replaces the stored one (a limit of 0, unknown,
// keeps the stored limit).
//
// KEYS[1] the org's key; ARGV used, limit, exceeded (0 or 1), the merge
// window and the TTL in microseconds and milliseconds. Returns the stored
// {used, limit, exceeded}.
const saveAllowanceSource = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local used, limit, exc = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local cur = redis.call('HMGET', KEYS[1], 'used', 'limit', 'at', 'exceeded')
if cur[3] then
  if now - tonumber(cur[3]) <= tonumber(ARGV[4]) then
    used = math.max(used, tonumber(cur[1]))
    if tonumber(cur[4]) == 1 then exc = 1 end
  end
  if limit == 0 then limit = tonumber(cur[2]) end
end
redis.call('HSET', KEYS[1], 'used', used, 'limit', limit, 'at', now, 'exceeded', exc)
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return {used, limit, exc}
`

// loadAllowanceSource reads an org's state with its age by Redis's clock.
// KEYS[1] the org's key. Returns {} or {used, limit, age in microseconds,
// exceeded}.
const loadAllowanceSource = `
local cur = redis.call('HMGET', KEYS[1], 'used', 'limit', 'at', 'exceeded')
if not cur[3] then return {} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
return {tonumber(cur[1]), tonumber(cur[2]), now - tonumber(cur[3]), tonumber(cur[4])}
`

// Allowance is the state the allowance guards share: the store itself with
// redis, nil with memory (each replica decides on what it saw).
func (s *Store) Allowance() allowance.Shared {
	if s.client == nil {
		return nil
	}
	return s
}

func (s *Store) allowanceKey(upstream string) string { return s.prefix + "allowance:" + upstream }

// LoadAllowance implements allowance.Shared: the freshest state any
// replica saved for upstream. An error (Redis failing, slow or down) is
// counted as a fallback: the caller decides on its own view.
func (s *Store) LoadAllowance(ctx context.Context, upstream string) (allowance.State, bool, error) {
	var st allowance.State
	var found bool
	err := s.guard.run(ctx, OpAllowance, func(ctx context.Context) error {
		res, err := s.loadAllowance.Run(ctx, s.client, []string{s.allowanceKey(upstream)}).Int64Slice()
		switch {
		case err != nil:
			return err
		case len(res) == 0:
			return nil
		case len(res) != 4:
			return errReply
		}
		st = allowance.State{Used: res[0], Limit: res[1], Age: time.Duration(res[2]) * time.Microsecond, Exceeded: res[3] == 1}
		found = true
		return nil
	})
	if err != nil {
		s.guard.rec.ClusterStoreFallback(OpAllowance)
		return allowance.State{}, false, err
	}
	return st, found, nil
}

// SaveAllowance implements allowance.Shared.
func (s *Store) SaveAllowance(ctx context.Context, upstream string, st allowance.State) (allowance.State, error) {
	exceeded := "0"
	if st.Exceeded {
		exceeded = "1"
	}
	var out allowance.State
	err := s.guard.run(ctx, OpAllowance, func(ctx context.Context) error {
		res, err := s.saveAllowance.Run(ctx, s.client, []string{s.allowanceKey(upstream)},
			strconv.FormatInt(st.Used, 10), strconv.FormatInt(st.Limit, 10), exceeded,
			strconv.FormatInt(allowance.MergeWindow.Microseconds(), 10), strconv.FormatInt(allowanceTTL.Milliseconds(), 10)).Int64Slice()
		if err == nil && len(res) != 3 {
			err = errReply
		}
		if err == nil {
			out = allowance.State{Used: res[0], Limit: res[1], Exceeded: res[2] == 1}
		}
		return err
	})
	if err != nil {
		s.guard.rec.ClusterStoreFallback(OpAllowance)
	}
	return out, err
}
