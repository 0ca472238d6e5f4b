package activity

import (
	"testing"
	"time"
)

// BenchmarkRecord is the request path's cost of the recording: an
// answered call that is neither among the slowest of its minute, an error
// nor a duplicate (the common case), serially and from every core.
func BenchmarkRecord(b *testing.B) {
	body := []byte(`{"name":"Acme","password":"hunter2"}`)
	newCall := func(i int) Call {
		now := time.Now()
		return Call{Start: now, End: now, Method: "GET", Route: "/{version}/accounts", Version: "v2",
			Path: "/v2/accounts", User: "user-1", TraceID: "4bf92f3577b34da6a3ce929d0e0e4736",
			Total: time.Duration(1000+i%1000) * time.Microsecond, Upstream: time.Millisecond, Status: 200, Body: body}
	}
	warm := func(r *Recorder) {
		slow := newCall(0)
		slow.Total = time.Hour // the slowest of the minute are taken
		for range 20 {
			r.Record(&slow)
		}
	}
	b.Run("serial", func(b *testing.B) {
		r := New(Config{SlowCalls: 10, DuplicateUsers: 32, MaxSeries: 256, MaxErrorSeries: 512})
		warm(r)
		c := newCall(0)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			c.Total = time.Duration(1000+i%1000) * time.Microsecond
			r.Record(&c)
			i++
		}
	})
	b.Run("parallel", func(b *testing.B) {
		r := New(Config{SlowCalls: 10, DuplicateUsers: 32, MaxSeries: 256, MaxErrorSeries: 512})
		warm(r)
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			c := newCall(0)
			for pb.Next() {
				r.Record(&c)
			}
		})
	})
	b.Run("error", func(b *testing.B) {
		r := New(Config{SlowCalls: 10, DuplicateUsers: 32, MaxSeries: 256, MaxErrorSeries: 512})
		warm(r)
		c := newCall(0)
		c.Status, c.Code, c.ErrorUpstream = 502, "CALLOUT_FAILED", "accounts"
		c.SystemMessage = "Callout failed. UserId: user-1 | TraceId: 4bf92f3577b34da6a3ce929d0e0e4736 | Body: {}"
		b.ReportAllocs()
		for b.Loop() {
			r.Record(&c)
		}
	})
	b.Run("duplicate", func(b *testing.B) {
		r := New(Config{SlowCalls: 10, DuplicateUsers: 32, MaxSeries: 256, MaxErrorSeries: 512})
		warm(r)
		c := newCall(0)
		c.Duplicate = true
		b.ReportAllocs()
		for b.Loop() {
			r.Record(&c)
		}
	})
}

// BenchmarkRead is what one poll of the console costs: every figure of
// 40 route series, 5 upstreams, the slow calls, duplicates and errors.
func BenchmarkRead(b *testing.B) {
	r := New(Config{SlowCalls: 10, DuplicateUsers: 32, MaxSeries: 256, MaxErrorSeries: 512})
	now := time.Now()
	for i := range 40 * 100 {
		c := Call{Start: now, End: now, Method: "GET", Route: "/{version}/r" + string(rune('a'+i%40)),
			Total: time.Duration(i) * time.Microsecond, Status: 200 + 100*(i%4)}
		if c.Status >= 400 {
			c.Code = "CALLOUT_FAILED"
		}
		c.Duplicate = i%9 == 0
		r.Record(&c)
	}
	names := []string{"a", "b", "c", "d", "e"}
	b.ReportAllocs()
	for b.Loop() {
		r.Routes()
		r.Upstreams(names)
		r.SlowCalls(Windows()[2], 50)
		r.Duplicates(Windows()[2], 50)
		r.Errors()
	}
}
