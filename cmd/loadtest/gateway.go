package main

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/restgate/gateway/gateway/app/apptest"
)

// gatewayPath is what the client asks of the gateway: the same list,
// mapped to v2's exposed names and enveloped.
const gatewayPath = "/v2/accounts"

// buildGateway compiles cmd/gateway into dir as the image does
// (apptest.BuildAsImage, with flags added to go build's), as name, beside
// the gateways' own directories (one is named gateway, so the binary is
// not): the harness measures the binary users deploy.
func buildGateway(ctx context.Context, dir, name string, log io.Writer, flags ...string) (string, error) {
	bin := filepath.Join(dir, name)
	if err := apptest.BuildAsImage(ctx, bin, log, flags...); err != nil {
		return "", err
	}
	return bin, nil
}

// startGateway writes the config into dir and runs bin on it with the
// HTTP/1 engines of engine (fast or std), in front of backend and logging
// to collector; env adds to its environment. With secure the API listener
// serves TLS with the gateway's own self-signed certificate. It verifies
// HS256 tokens of apptest.JWTSecret.
func startGateway(ctx context.Context, bin, dir, host, engine string, secure bool, backend, collector string, env []string) (*child, error) {
	auth, err := hsBearer()
	if err != nil {
		return nil, err
	}
	return startGatewayOn(ctx, apptest.AccountsConfig, auth, bin, dir, host, engine, secure, backend, collector, env)
}

// startGatewayOn is startGateway on the configuration config, whose
// readiness is asked with auth's tokens.
func startGatewayOn(ctx context.Context, config string, auth *bearer, bin, dir, host, engine string, secure bool, backend, collector string, env []string) (*child, error) {
	return runGateway(ctx, gatewayRun{bin: bin, dir: dir, host: host, config: config, name: "gateway (" + engine + ")",
		log: "gateway-" + engine + ".log", secure: secure, auth: auth,
		probe: func(api, _ string) error { return checkGateway(api, auth) },
		env: append([]string{"GATEWAY_ENGINE=" + engine, "GATEWAY_LOG_COLLECTOR_URL=" + collector, "ACCOUNTS_URL=" + backend,
			"GATEWAY_JWT_SECRET=" + apptest.JWTSecret}, env...)})
}

// gatewayRun is one gateway process to start: bin on config (written into
// dir), named name, its output in dir/log, ready once probe(its API URL)
// succeeds (its API and admin URLs). Its environment gives it
// GATEWAY_LISTEN, GATEWAY_ADMIN_LISTEN, GATEWAY_TLS and GATEWAY_DATA_DIR,
// then env. auth is the tokens it accepts, nil when it asks for none.
type gatewayRun struct {
	bin, dir, host, config, name, log string
	secure                            bool
	env                               []string
	auth                              *bearer
	probe                             func(api, admin string) error
}

// runGateway starts g.
func runGateway(ctx context.Context, g gatewayRun) (*child, error) {
	if err := os.MkdirAll(g.dir, 0o700); err != nil {
		return nil, err
	}
	cfgPath := filepath.Join(g.dir, "config.yaml")
	if err := os.WriteFile(cfgPath, []byte(g.config), 0o600); err != nil {
		return nil, err
	}
	api, err := freeAddr(g.host)
	if err != nil {
		return nil, err
	}
	admin, err := freeAddr(g.host)
	if err != nil {
		return nil, err
	}
	logFile, err := os.Create(filepath.Join(g.dir, g.log))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(g.bin, "serve", "-config", cfgPath)
	cmd.Env = append(os.Environ(), "GATEWAY_LISTEN="+api, "GATEWAY_ADMIN_LISTEN="+admin, "GATEWAY_TLS=off",
		"GATEWAY_DATA_DIR="+filepath.Join(g.dir, "data"))
	cmd.Env = append(cmd.Env, g.env...)
	url := "http://" + api
	if g.secure {
		cmd.Env = append(cmd.Env, "GATEWAY_TLS=auto") // the last of a name wins
		url = "https://" + api
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	c, err := startServer(ctx, g.name, url, cmd, func() error { return g.probe(url, "http://"+admin) })
	_ = logFile.Close()
	if err != nil {
		log, _ := os.ReadFile(logFile.Name())
		return nil, fmt.Errorf("%w\n%s", err, strings.TrimSpace(string(log)))
	}
	c.admin, c.auth = "http://"+admin, g.auth
	return c, nil
}

// profileGateway fetches a profile of the gateway covering d from now
// (whole seconds, at least one) into path: kind is "profile" (CPU) or
// "allocs" (what was allocated meanwhile). The channel reports the
// outcome.
func profileGateway(admin, kind string, d time.Duration, path string) <-chan error {
	done := make(chan error, 1)
	secs := max(1, int(d/time.Second))
	go func() {
		client := &http.Client{Timeout: time.Duration(secs)*time.Second + 30*time.Second}
		resp, err := client.Get(fmt.Sprintf("%s/debug/pprof/%s?seconds=%d", admin, kind, secs))
		if err != nil {
			done <- err
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			done <- fmt.Errorf("profile: status %d", resp.StatusCode)
			return
		}
		f, err := os.Create(path)
		if err != nil {
			done <- err
			return
		}
		_, err = io.Copy(f, resp.Body)
		done <- errors.Join(err, f.Close())
	}()
	return done
}

// checkTimeout bounds one checkGateway request, so a gateway that accepts
// and never answers fails the readiness wait instead of hanging it.
const checkTimeout = 5 * time.Second

// checkGateway asks the gateway for the list once, with the next of
// auth's tokens, and checks that it is the enveloped, v2-mapped answer of
// the 20 accounts.
func checkGateway(base string, auth *bearer) error {
	client := newClient(1, true, false, auth)
	client.Timeout = checkTimeout
	defer client.CloseIdleConnections()
	req, err := http.NewRequest(http.MethodGet, base+gatewayPath, nil)
	if err != nil {
		return err
	}
	body, err := getOK(client, req)
	if err != nil {
		return err
	}
	return checkEnvelope(body)
}

// getOK sends req and returns the body of its answer, which must be a 200.
func getOK(client *http.Client, req *http.Request) ([]byte, error) {
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: status %d: %.300s", req.URL.Path, resp.StatusCode, body)
	}
	return body, nil
}

// checkEnvelope checks an answer of GET /v2/accounts.
func checkEnvelope(body []byte) error {
	var env struct {
		Result      []map[string]any `json:"result"`
		MapKeysFlag *bool            `json:"mapKeysFlag"`
		TimeStamp   string           `json:"timeStamp"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return fmt.Errorf("answer is not an envelope: %w: %.300s", err, body)
	}
	switch {
	case len(env.Result) != 20:
		return fmt.Errorf("answer holds %d accounts, want 20: %.300s", len(env.Result), body)
	case env.MapKeysFlag == nil || !*env.MapKeysFlag || env.TimeStamp == "":
		return fmt.Errorf("answer lacks the envelope's mapKeysFlag or timeStamp: %.300s", body)
	case env.Result[0]["totalAssets"] == nil || env.Result[0]["Total_Assets__c"] != nil:
		return fmt.Errorf("answer is not in v2's exposed names: %.300s", body)
	}
	return nil
}

// freeAddr returns a loopback address with a port free at the time of the
// call, for a process that takes its address from its config.
func freeAddr(host string) (string, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	return addr, ln.Close()
}

// checkAnswer asks url once and checks that the answer holds the records a
// scenario of records asks for (0: the fixed list of 20), bare or as the
// envelope's result, so that no target is measured on a shorter answer. A
// gzipped answer (the -gzip client asks for it) is decompressed first.
func checkAnswer(client *http.Client, url string, records int) error {
	resp, err := client.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var r io.Reader = resp.Body
	if resp.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			return fmt.Errorf("GET %s: gzip: %w", url, err)
		}
		r = zr
	}
	body, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: status %d: %.300s", url, resp.StatusCode, body)
	}
	var list []json.RawMessage
	if err := json.Unmarshal(body, &list); err != nil {
		var env struct {
			Result []json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(body, &env); err != nil {
			return fmt.Errorf("GET %s: neither a list nor an envelope: %.300s", url, body)
		}
		list = env.Result
	}
	want := records
	if want == 0 {
		want = 20
	}
	if len(list) != want {
		return fmt.Errorf("GET %s: %d records, want %d", url, len(list), want)
	}
	return nil
}

// gatewayProfile is a profile being fetched (profileGateway).
type gatewayProfile struct {
	what, path string
	done       <-chan error
}

// startProfiles starts fetching the profiles the flags ask for, each
// covering one measured stretch from now.
func (o *options) startProfiles(admin string) []gatewayProfile {
	var ps []gatewayProfile
	for _, p := range []struct{ what, kind, path string }{
		{"CPU profile", "profile", o.cpuprofile},
		{"allocation profile", "allocs", o.allocprofile},
	} {
		if p.path != "" {
			ps = append(ps, gatewayProfile{what: p.what, path: p.path, done: profileGateway(admin, p.kind, o.duration, p.path)})
		}
	}
	return ps
}
