package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/restgate/gateway/upstreams"
)

func TestSandboxProblems(t *testing.T) {
	t.Parallel()
	ups := map[string]upstreams.Settings{
		"workflow": {URL: "sandbox"}, "accounts": {URL: "sandbox:original"}, "data": {URL: "https://data.internal"},
	}
	tests := []struct {
		desc  string
		ups   map[string]upstreams.Settings
		built bool
		want  []string
	}{
		{desc: "a build with the sandbox accepts sandbox urls", ups: ups, built: true},
		{desc: "a build without it names each by key path, in name order", ups: ups, built: false, want: []string{
			`upstreams.accounts.url: "sandbox" needs a build with the sandbox (this binary was built with -tags nosandbox)`,
			`upstreams.workflow.url: "sandbox" needs a build with the sandbox (this binary was built with -tags nosandbox)`,
		}},
		{desc: "a build without it accepts real urls", ups: map[string]upstreams.Settings{"data": {URL: "http://127.0.0.1:9"}}, built: false},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, err := range sandboxProblems(tt.ups, tt.built) {
				assert.ErrorIs(t, err, errNoSandbox)
				got = append(got, err.Error())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}
