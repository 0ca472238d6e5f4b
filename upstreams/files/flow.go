package files

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"

	"github.com/restgate/gateway/upstreams"
)

// fileDataPart is the binary part of the files resource.
const fileDataPart = "fileData"

// uploadThenPost is the flow of API v36.0 and later: each file to the
// files resource, then one JSON batch post attaching the uploaded files by
// id. A file the backend refuses (4xx) is that file's Result and is not
// posted; a failure of the whole call (credentials, rate limit, 5xx,
// transport) ends the upload with its error, the files already uploaded
// staying in the integration user's private Files home.
func (c *Client) uploadThenPost(ctx context.Context, subjectID string, files []File) ([]Result, error) {
	out := make([]Result, len(files))
	var ids []string
	var posted []int
	for i, f := range files {
		out[i].Title = f.Title
		id, item, err := c.uploadOne(ctx, f)
		if err != nil {
			return nil, err
		}
		if item != nil {
			out[i].StatusCode, out[i].Errors = item.StatusCode, item.Errors
			continue
		}
		ids = append(ids, id)
		posted = append(posted, i)
	}
	if len(ids) == 0 {
		return out, nil
	}
	results, err := c.postFeedItems(ctx, subjectID, ids)
	if err != nil {
		return nil, err
	}
	for k, i := range posted {
		r := results[k]
		r.Title = files[i].Title
		out[i] = r
	}
	return out, nil
}

// uploadOne sends one file to the files resource: its id, or the
// backend's refusal of that file as a Result.
func (c *Client) uploadOne(ctx context.Context, f File) (string, *Result, error) {
	meta, err := json.Marshal(struct {
		Title string `json:"title"`
	}{f.Title})
	if err != nil {
		return "", nil, err
	}
	boundary := multipart.NewWriter(io.Discard).Boundary()
	one := []File{f}
	// the files resource's body: the "json" part with the title, then the
	// file as "fileData"
	write := func(w io.Writer, send bool) error {
		return writeBody(w, boundary, meta, []File{f}, func(int) string { return fileDataPart }, send)
	}
	resp, err := c.stream(ctx, c.filesURL, boundary, write, one)
	if err != nil {
		if ue := upstreams.AsError(err); ue != nil && ue.Kind == upstreams.KindRejected {
			return "", &Result{StatusCode: ue.Status, Errors: []ItemError{{ErrorCode: ue.Code, Message: ue.Message}}}, nil
		}
		return "", nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e := upstreams.ReadStatusError(Name, resp)
		if e.Kind == upstreams.KindRejected {
			return "", &Result{StatusCode: e.Status, Errors: []ItemError{{ErrorCode: e.Code, Message: e.Message}}}, nil
		}
		return "", nil, e
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return "", nil, upstreams.TransportError(ctx, Name, err)
	}
	var detail struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(body, &detail); err != nil || detail.ID == "" {
		return "", nil, upstreams.Reject(resp, invalid("the files resource answered no file id", err))
	}
	return detail.ID, nil, nil
}

// postFeedItems posts one feed item per uploaded file id, in ONE batch, as
// application/json, and returns one Result per id (ID is the feed item's).
func (c *Client) postFeedItems(ctx context.Context, subjectID string, ids []string) ([]Result, error) {
	type item struct {
		ID string `json:"id"`
	}
	type input struct {
		RichInput struct {
			SubjectID       string `json:"subjectId"`
			FeedElementType string `json:"feedElementType"`
			Capabilities    struct {
				Files struct {
					Items []item `json:"items"`
				} `json:"files"`
			} `json:"capabilities"`
		} `json:"richInput"`
	}
	inputs := make([]input, len(ids))
	for i, id := range ids {
		inputs[i].RichInput.SubjectID = subjectID
		inputs[i].RichInput.FeedElementType = "FeedItem"
		inputs[i].RichInput.Capabilities.Files.Items = []item{{ID: id}}
	}
	body, err := json.Marshal(struct {
		Inputs []input `json:"inputs"`
	}{inputs})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("files: building request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.doer.Do(req)
	if err != nil {
		return nil, upstreams.TransportError(ctx, Name, err)
	}
	defer resp.Body.Close()
	placeholders := make([]File, len(ids))
	return readAnswer(ctx, resp, placeholders)
}
