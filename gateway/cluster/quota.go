package cluster

import (
	"context"
	"strconv"
	"time"

	"github.com/restgate/gateway/gateway/quota"
)

// OpQuota is the op label of the quotas' calls to Redis.
const OpQuota = "quota"

// quotaSource counts one request in every window of a consumer when none
// is spent, atomically: with KEYS the windows' counters (one consumer's,
// in one hash slot), ARGV their quotas, then their TTLs in milliseconds
// (until the window ends, and an hour more for the replicas' clocks).
// Returns {-1, counts after the request...} when counted, {index of a
// spent window (from 0), counts...} when not.
const quotaSource = `
local n = #KEYS
local out = {-1}
for i = 1, n do
  local c = tonumber(redis.call('GET', KEYS[i])) or 0
  out[i + 1] = c
  if out[1] < 0 and c >= tonumber(ARGV[i]) then out[1] = i - 1 end
end
if out[1] >= 0 then return out end
for i = 1, n do
  local c = redis.call('INCR', KEYS[i])
  if c == 1 then redis.call('PEXPIRE', KEYS[i], ARGV[n + i]) end
  out[i + 1] = c
end
return out
`

// clockMargin keeps a window's counter past its end by the clock skew the
// replicas may have: a replica a little behind still finds it.
const clockMargin = time.Hour

// Quotas counts quotas in Redis, across replicas; local keeps what this
// replica counted and told, and counts alone while Redis fails (from the
// last counts it knew) unless the store fails closed.
type Quotas struct {
	store *Store
	local *quota.Memory
}

// Quotas returns the quota store: local itself with the memory store.
func (s *Store) Quotas(local *quota.Memory) quota.Store {
	if s.client == nil {
		return local
	}
	return &Quotas{store: s, local: local}
}

func (q *Quotas) keys(req *quota.Request) []string {
	keys := make([]string, len(req.Counts))
	for i := range req.Counts {
		keys[i] = q.store.prefix + "q:" + req.Counts[i].Key
	}
	return keys
}

// Take implements quota.Store.
func (q *Quotas) Take(ctx context.Context, req *quota.Request) (int, error) {
	s := q.store
	spent := -1
	err := s.guard.run(ctx, OpQuota, func(ctx context.Context) error {
		n := len(req.Counts)
		args := make([]any, 2*n)
		now := time.Now()
		for i := range req.Counts {
			args[i] = req.Counts[i].Quota
			args[n+i] = (req.Counts[i].Reset.Sub(now) + clockMargin).Milliseconds()
		}
		res, err := s.quota.Run(ctx, s.client, q.keys(req), args...).Int64Slice()
		if err == nil && len(res) != n+1 {
			err = errReply
		}
		if err != nil {
			return err
		}
		spent = int(res[0])
		for i := range req.Counts {
			req.Counts[i].Used = res[i+1]
		}
		return nil
	})
	if err == nil {
		q.local.Record(req)
		return spent, nil
	}
	if s.failClosed {
		return -1, err
	}
	s.guard.rec.ClusterStoreFallback(OpQuota)
	return q.local.Take(ctx, req)
}

// Peek implements quota.Store: one MGET of the consumer's counters.
func (q *Quotas) Peek(ctx context.Context, req *quota.Request) error {
	s := q.store
	return s.guard.run(ctx, OpQuota, func(ctx context.Context) error {
		vals, err := s.client.MGet(ctx, q.keys(req)...).Result()
		if err != nil {
			return err
		}
		for i, v := range vals {
			req.Counts[i].Used = 0
			if str, ok := v.(string); ok {
				if req.Counts[i].Used, err = strconv.ParseInt(str, 10, 64); err != nil {
					return errReply
				}
			} else if v != nil {
				return errReply
			}
		}
		return nil
	})
}
