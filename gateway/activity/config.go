package activity

import (
	"github.com/restgate/gateway/gateway/calllog"
	"github.com/restgate/gateway/gateway/config"
)

// FromConfig is the recording cfg asks for (console.*, defaults filled),
// nil when console.record or the console is off. Slow calls' bodies are
// masked with the call log's settings (log.redactFields,
// log.maxBodyBytes).
func FromConfig(cfg *config.Config) *Recorder {
	c := cfg.Console
	if !c.Recording() {
		return nil
	}
	return New(Config{SlowCalls: c.SlowCalls, DuplicateUsers: c.DuplicateUsers,
		MaxSeries: c.MaxSeries, MaxErrorSeries: c.MaxErrorSeries,
		Masker: calllog.NewMasker(cfg.Log.RedactFields, cfg.Log.MaxBodyBytes)})
}
