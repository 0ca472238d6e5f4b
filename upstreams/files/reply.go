package files

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/restgate/gateway/upstreams"
)

// maxAnswer bounds the batch answer read: 500 full feed items fit easily.
const maxAnswer = 32 << 20

type batchAnswer struct {
	HasErrors bool          `json:"hasErrors"`
	Results   []batchResult `json:"results"`
}

type batchResult struct {
	StatusCode int             `json:"statusCode"`
	Result     json.RawMessage `json:"result"`
}

func readAnswer(ctx context.Context, resp *http.Response, files []File) ([]Result, error) {
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, upstreams.ReadStatusError(Name, resp)
	}
	body, err := upstreams.ReadAnswer(resp, maxAnswer)
	if err != nil {
		return nil, upstreams.TransportError(ctx, Name, err)
	}
	if len(body) > maxAnswer {
		return nil, upstreams.Reject(resp, invalid(fmt.Sprintf("answer larger than %d bytes", maxAnswer), nil))
	}
	results, err := parseAnswer(body, files)
	if err != nil {
		return nil, upstreams.Reject(resp, err)
	}
	return results, nil
}

// parseAnswer maps the batch results to the files by position, which is how
// the backend orders them.
func parseAnswer(body []byte, files []File) ([]Result, error) {
	var a batchAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, invalid("batch answer is not the documented JSON", err)
	}
	if len(a.Results) != len(files) {
		return nil, invalid(fmt.Sprintf("%d results for %d files", len(a.Results), len(files)), nil)
	}
	out := make([]Result, len(files))
	for i, r := range a.Results {
		out[i] = Result{Title: files[i].Title, StatusCode: r.StatusCode}
		if r.StatusCode >= 200 && r.StatusCode <= 299 {
			var item struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal(r.Result, &item); err != nil || item.ID == "" {
				return nil, invalid(fmt.Sprintf("result %d: a success without a feed item id", i), err)
			}
			out[i].ID = item.ID
			continue
		}
		if r.StatusCode < 400 || r.StatusCode > 599 {
			return nil, invalid(fmt.Sprintf("result %d: status code %d", i, r.StatusCode), nil)
		}
		out[i].Errors = itemErrors(r.Result, r.StatusCode)
	}
	return out, nil
}

// itemErrors reads a failed item's result: documented as an array of
// {errorCode, message}; a single object or plain text is read too, and an
// item never ends up without at least one error to show.
func itemErrors(raw json.RawMessage, status int) []ItemError {
	var list []ItemError
	if json.Unmarshal(raw, &list) == nil && len(list) > 0 {
		for i := range list {
			list[i].Message = upstreams.TrimMessage(list[i].Message)
		}
		return list
	}
	var one ItemError
	if json.Unmarshal(raw, &one) == nil && (one.ErrorCode != "" || one.Message != "") {
		one.Message = upstreams.TrimMessage(one.Message)
		return []ItemError{one}
	}
	msg := http.StatusText(status)
	if s := strings.TrimSpace(string(raw)); s != "" && s != "null" && s != "[]" && s != "{}" {
		msg = upstreams.TrimMessage(s)
	}
	return []ItemError{{Message: msg}}
}

func invalid(msg string, err error) error {
	return &upstreams.Error{Upstream: Name, Kind: upstreams.KindInvalid, Message: msg, Err: err}
}
