package desync

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// outcome is what a caller got for one request.
type outcome struct {
	status int
	id     string // result.id of a success envelope
	code   string // responseCode.id of an error envelope
	coded  bool   // an error envelope with an id and a code
	body   string
}

func (o outcome) String() string {
	switch {
	case o.id != "":
		return fmt.Sprintf("%d for %s", o.status, o.id)
	case o.code != "":
		return fmt.Sprintf("%d %s", o.status, o.code)
	}
	return fmt.Sprintf("%d %.40q", o.status, o.body)
}

// requestFor is the raw request a caller sends for id: a GET of the
// account, or a POST creating it (the backend echoes the name as the id).
func requestFor(method, id string) string {
	if method == http.MethodPost {
		body := `{"name":"` + id + `"}`
		return fmt.Sprintf("POST /v2/accounts HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
			len(body), body)
	}
	return "GET /v2/accounts/" + id + " HTTP/1.1\r\nHost: gateway\r\n\r\n"
}

// call sends one request for id on a connection of its own to addr.
func call(addr, method, id string) (outcome, error) {
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return outcome{}, err
	}
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := io.WriteString(nc, requestFor(method, id)); err != nil {
		return outcome{}, err
	}
	return readOutcome(bufio.NewReader(nc), method)
}

// readOutcome reads one answer from br.
func readOutcome(br *bufio.Reader, method string) (outcome, error) {
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	if err != nil {
		return outcome{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return outcome{}, err
	}
	o := outcome{status: resp.StatusCode, body: string(b)}
	var env struct {
		Result       json.RawMessage `json:"result"`
		ResponseCode *struct {
			ID   string `json:"id"`
			Code int    `json:"code"`
		} `json:"responseCode"`
	}
	if json.Unmarshal(b, &env) != nil {
		return o, nil
	}
	if env.ResponseCode != nil {
		o.code = env.ResponseCode.ID
		o.coded = env.ResponseCode.ID != "" && env.ResponseCode.Code != 0
	}
	var result struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(env.Result, &result) == nil {
		o.id = result.ID
	}
	return o, nil
}

// exchangeRaw writes raw on a connection of its own to addr, half-closes
// it, and reads every answer until the connection ends (or stalls for a
// few seconds). methods are those of the requests raw holds, in order, for
// the framing of their answers (GET past the end). A half-closed caller
// may get 499 for a request still running: both servers take the end of
// its stream for a client gone.
func exchangeRaw(addr, raw string, methods ...string) ([]outcome, error) {
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(nc, raw); err != nil {
		return nil, err
	}
	if tc, ok := nc.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
	}
	br := bufio.NewReader(nc)
	var out []outcome
	for {
		if _, err := br.Peek(1); err != nil {
			return out, nil
		}
		method := http.MethodGet
		if len(out) < len(methods) {
			method = methods[len(out)]
		}
		o, err := readOutcome(br, method)
		if err != nil {
			return out, err
		}
		out = append(out, o)
	}
}
