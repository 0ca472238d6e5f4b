package envelope

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestClientReason(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, code, message, want string
	}{
		{desc: "a plain reason stays", message: "Could not find a task with id '444'.", want: "Could not find a task with id '444'."},
		{desc: "the code leads", code: "NOT_FOUND", message: "no such account", want: "NOT_FOUND: no such account"},
		{desc: "a code the message names is not repeated", code: "MALFORMED_QUERY", message: "MALFORMED_QUERY: unexpected token at position 12",
			want: "MALFORMED_QUERY: unexpected token at position 12"},
		{desc: "the query echo of a SOQL error is collapsed onto one line", code: "INVALID_FIELD",
			message: "\nSELECT Nme FROM Account\n       ^\nERROR at Row:1:Column:8\nNo such column 'Nme' on entity 'Account'.",
			want:    "INVALID_FIELD: SELECT Nme FROM Account ^ ERROR at Row:1:Column:8 No such column 'Nme' on entity 'Account'."},
		{desc: "markup is stripped", message: "<html><body><h1>Conflict</h1><p>task already claimed by another user</p></body></html>",
			want: "Conflict task already claimed by another user"},
		{desc: "a Java stack trace is dropped", message: "task already claimed\n\tat org.flowable.Engine.claim(Engine.java:12)\n\tat java.lang.Thread.run(Thread.java:1)",
			want: "task already claimed"},
		{desc: "a Go stack trace is dropped", message: "bad input\ngoroutine 1 [running]:\nmain.main()\n\t/src/main.go:5", want: "bad input"},
		{desc: "a Python traceback is dropped", message: "invalid\nTraceback (most recent call last):\n  File \"x.py\", line 1", want: "invalid"},
		{desc: "URLs go", message: "see https://internal.example.com/docs?token=abc for details", want: "see [removed] for details"},
		{desc: "hosts and ports go", message: "backend db01.corp.internal:5432 refused; also 10.0.0.7:8080 and [::1]:9000 and localhost:3000",
			want: "backend [removed] refused; also [removed] and [removed] and [removed]"},
		{desc: "mail addresses go", message: "user kermit@example.com is locked", want: "user [removed] is locked"},
		{desc: "bearer tokens go", message: "invalid Bearer abcdefghijklmnop for user", want: "invalid Bearer [removed] for user"},
		{desc: "password=... goes", message: "login failed password=hunter2 user=kermit", want: "login failed password=[removed] user=kermit"},
		{desc: "a token after = goes", message: "refused token=abc", want: "refused token=[removed]"},
		{desc: "a parser's token stays", code: "MALFORMED_QUERY", message: "unexpected token: FORM", want: "MALFORMED_QUERY: unexpected token: FORM"},
		{desc: "a password after a colon goes", message: "bad password: hunter2", want: "bad password: [removed]"},
		{desc: "quoted secrets go", message: `{"client_secret": "s3cr3t value"} refused`, want: `{"client_secret": [removed]} refused`},
		{desc: "opaque tokens go", message: "session 00D5e000000abcd!AQ4AQFJ8xYzZ1234567890abcdefghijklmnop expired", want: "session [removed] expired"},
		{desc: "record ids stay", message: "no account 001000000000000AAA", want: "no account 001000000000000AAA"},
		{desc: "file paths go", message: "cannot open /var/lib/app/data.db: denied", want: "cannot open [removed]: denied"},
		{desc: "a field path of a query stays", message: "No such relation 'Account.Owner.Name'", want: "No such relation 'Account.Owner.Name'"},
		{desc: "control characters go", message: "bad\x00value\x1b[31m here", want: "bad value [31m here"},
		{desc: "a long reason is cut at a character", message: strings.Repeat("é", 150), want: strings.Repeat("é", 98) + "..."},
		{desc: "nothing left", message: "   ", want: ""},
		{desc: "only a code", code: "NOT_FOUND", want: "NOT_FOUND"},
		{desc: "a code with odd characters is cleaned", code: "A B<c>", message: "x", want: "ABc: x"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, ClientReason(tt.code, tt.message))
		})
	}
}

// FuzzClientReason: whatever a backend says, the reason is short, valid
// UTF-8, one line without markup or control characters, names no URL,
// and reading it again changes nothing.
func FuzzClientReason(f *testing.F) {
	for _, s := range []string{"Could not find a task with id '444'.", "see https://x.example.com/a", "<b>x</b>",
		"a\n\tat b.c(D.java:1)", "password=x", "Bearer abcdefghijkl", "10.0.0.1:80", strings.Repeat("x", 300),
		"\xff\xfe", "<<>>", "token: \"a b\""} {
		f.Add("CODE", s)
	}
	f.Fuzz(func(t *testing.T, code, message string) {
		out := ClientReason(code, message)
		if len(out) > MaxReasonBytes {
			t.Fatalf("%d bytes: %q", len(out), out)
		}
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8: %q", out)
		}
		if strings.ContainsAny(out, "<>\n\r\t") || strings.IndexFunc(out, unicode.IsControl) >= 0 {
			t.Fatalf("markup or control characters: %q", out)
		}
		if strings.Contains(out, "://") {
			t.Fatalf("a URL: %q", out)
		}
		if out != strings.TrimSpace(out) || strings.Contains(out, "  ") {
			t.Fatalf("untidy whitespace: %q", out)
		}
		if again := ClientReason("", out); again != out && !strings.HasSuffix(out, "...") {
			t.Fatalf("not stable: %q -> %q", out, again)
		}
	})
}
