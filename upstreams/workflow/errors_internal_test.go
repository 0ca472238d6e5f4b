package workflow

import (
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestErrorMessage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		body string
		want string
	}{
		{"code shape", `{"message":"Not found","exception":"Could not find a task with id '444'."}`, "Not found: Could not find a task with id '444'."},
		{"documented shape", `{"statusCode":404,"errorMessage":"Could not find a task with id '444'."}`, "Could not find a task with id '444'."},
		{"message only", `{"message":"Internal server error","exception":null}`, "Internal server error"},
		{"same text twice", `{"message":"Conflict","exception":"Conflict"}`, "Conflict"},
		{"non-string members ignored", `{"message":42,"exception":{"a":1},"errorMessage":["x"]}`, ""},
		{"not JSON", `<html>Service Unavailable</html>`, ""},
		{"array", `[{"message":"x"}]`, ""},
		{"empty", ``, ""},
		{"blank members", `{"message":"  ","exception":""}`, ""},
		{"long text is clipped", `{"exception":"` + strings.Repeat("é", 400) + `"}`, strings.Repeat("é", 250) + "..."},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, errorMessage([]byte(tt.body)))
		})
	}
}

func FuzzErrorMessage(f *testing.F) {
	for _, seed := range []string{
		`{"message":"Not found","exception":"Could not find a task with id '444'."}`,
		`{"statusCode":404,"errorMessage":"gone"}`,
		`{"message":"\xff\xfe"}`,
		`{"exception":"` + strings.Repeat("ab", 600) + `"}`,
		`null`, `{}`, `[`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		msg := errorMessage(body)
		if !utf8.ValidString(msg) {
			t.Fatalf("message is not UTF-8: %q", msg)
		}
		if len(msg) > maxMessage+len("...") {
			t.Fatalf("message of %d bytes exceeds the bound", len(msg))
		}
		if msg != strings.TrimSpace(msg) {
			t.Fatalf("message not trimmed: %q", msg)
		}
		e := statusError(&http.Response{StatusCode: 404}, "/runtime/tasks/1", body)
		if e.Status != 404 || e.Message == "" {
			t.Fatalf("status error lost its status or message: %+v", e)
		}
	})
}
