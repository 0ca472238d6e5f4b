package main

import (
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/restgate/gateway/gateway/config"
)

// isTerminal reports whether w is a terminal (the gateway run by hand).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// newLogger is the gateway's own log on w: text for a person (the time of
// day to the millisecond, then level, message and key=value pairs) or one
// JSON object a line, as log.localFormat says (auto: text on a terminal).
func newLogger(w io.Writer, l config.Log, terminal bool) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(l.Level))
	opts := &slog.HandlerOptions{Level: level}
	format := l.LocalFormat
	if format == config.LocalAuto || format == "" {
		format = config.FormatJSON
		if terminal {
			format = config.FormatText
		}
	}
	if format == config.FormatJSON {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	opts.ReplaceAttr = func(groups []string, a slog.Attr) slog.Attr {
		if len(groups) == 0 && a.Key == slog.TimeKey && a.Value.Kind() == slog.KindTime {
			return slog.String(slog.TimeKey, a.Value.Time().Format(time.TimeOnly+".000"))
		}
		return a
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// localCalls says whether each call goes to the gateway's own log too
// (log.local; auto: on a terminal).
func localCalls(l config.Log, terminal bool) bool {
	return l.Local == config.LocalStdout || (l.Local == config.LocalAuto && terminal)
}
