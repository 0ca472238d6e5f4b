// Package files is the adapter of the batch file upload (UPSTREAMS.md B3),
// Salesforce Connect's feed elements. The flow follows the configured API
// version:
//
//   - v35.0 and earlier: ONE "feed elements, batch post" multipart request
//     holding a rich input part "json" and one binary part per feed item;
//   - v36.0 and later, which refuse binary parts in a feed post: each file
//     is uploaded alone to the Connect files resource
//     (.../connect/communities/{id}/files/users/me, part "fileData"), then
//     ONE batch post (application/json) creates one feed item per uploaded
//     file, attaching it by id through the files capability.
//
// Request bodies are produced while they are sent, through an io.Pipe, from
// readers the caller opens per file, so an upload of any size costs a fixed
// buffer; a body can be produced again (GetBody) for the shared client to
// send it once more after renewing an expired token, never to retry a
// failure (a POST is not replayed). Failures of the backend are
// *upstreams.Error with Upstream "files"; a file the adapter itself cannot
// read is a *LocalError.
package files

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/restgate/gateway/upstreams"
	"github.com/restgate/gateway/upstreams/dataapi"
)

// Name is the upstream name this adapter puts in its errors.
const Name = "files"

// MaxFiles is the backend's limit of feed items in one batch.
const MaxFiles = 500

// Errors of a call the adapter refuses before sending anything; they are
// the caller's bugs, since the gateway's upload reader enforces the same
// rules on the client's input.
var (
	ErrNoFiles      = errors.New("files: no file to upload")
	ErrTooManyFiles = fmt.Errorf("files: more than %d files in one batch", MaxFiles)
	ErrNoSubject    = errors.New("files: empty subject id")
	ErrBadFile      = errors.New("files: file without Open or with a negative Size")
)

// LocalError is a file the adapter could not read while sending it (the
// spooled copy vanished, or it had another size than announced). Nothing is
// wrong with the backend; the gateway answers 500.
type LocalError struct {
	Filename string
	Err      error
}

// Error names the file.
func (e *LocalError) Error() string {
	return fmt.Sprintf("files: reading %q: %v", e.Filename, e.Err)
}

// Unwrap returns the read error.
func (e *LocalError) Unwrap() error { return e.Err }

// File is one file to upload.
type File struct {
	// Title becomes the feed item's content title.
	Title string
	// Filename is sent as the binary part's filename.
	Filename string
	// Size is the exact number of bytes Open yields; the request's
	// Content-Length is computed from it, and a file that yields another
	// count fails the call with a *LocalError.
	Size int64
	// Open is called once, while the body is being sent; the adapter closes
	// what it returns.
	Open func() (io.ReadCloser, error)
}

// Result is the backend's outcome for one file, in the order of the files.
type Result struct {
	Title      string      `json:"title"`
	StatusCode int         `json:"statusCode"`
	ID         string      `json:"id,omitempty"`
	Errors     []ItemError `json:"errors,omitempty"`
}

// ItemError is one error the backend gave for one file.
type ItemError struct {
	ErrorCode string `json:"errorCode"`
	Message   string `json:"message"`
}

// Client calls one batch upload resource. It is safe for concurrent use.
type Client struct {
	url string
	// filesURL is the files resource of the upload-then-post flow; empty
	// for v35.0 and earlier.
	filesURL string
	doer     upstreams.Doer
}

// New returns a client of the batch resource of community communityID under
// baseURL (the instance URL, such as "https://example.my.salesforce.com";
// a trailing slash is ignored). apiVersion is "v62.0" or "62.0": up to
// v35.0 files travel inside the batch, later they are uploaded first (see
// the package documentation). The bearer token is not the adapter's
// concern: the shared client adds it from the configuration.
func New(baseURL, apiVersion, communityID string, doer upstreams.Doer) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("files: base URL %q is not an absolute http(s) URL", baseURL)
	}
	if !validAPIVersion(apiVersion) {
		return nil, fmt.Errorf("files: API version %q is not like v35.0", apiVersion)
	}
	if strings.TrimSpace(communityID) == "" {
		return nil, errors.New("files: empty community id")
	}
	if doer == nil {
		return nil, errors.New("files: nil Doer")
	}
	version := "v" + strings.TrimPrefix(apiVersion, "v")
	community := strings.TrimRight(baseURL, "/") + "/services/data/" + version + "/connect/communities/" + url.PathEscape(communityID)
	c := &Client{url: community + "/chatter/feed-elements/batch", doer: doer}
	if !dataapi.BinaryBatch(version) {
		c.filesURL = community + "/files/users/me"
	}
	return c, nil
}

// Upload posts one feed item per file on subjectID's feed, in ONE request,
// and returns one Result per file in the same order. A file the backend
// refused is a Result with its 4xx/5xx StatusCode and Errors, not an error:
// the call's error is for the whole request failing.
func (c *Client) Upload(ctx context.Context, subjectID string, files []File) ([]Result, error) {
	if err := check(subjectID, files); err != nil {
		return nil, err
	}
	if c.filesURL != "" {
		return c.uploadThenPost(ctx, subjectID, files)
	}
	rich, err := batchJSON(subjectID, files)
	if err != nil {
		return nil, fmt.Errorf("files: encoding batch input: %w", err)
	}
	boundary := multipart.NewWriter(io.Discard).Boundary()
	write := func(w io.Writer, send bool) error { return writeBody(w, boundary, rich, files, partName, send) }
	resp, err := c.stream(ctx, c.url, boundary, write, files)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return readAnswer(ctx, resp, files)
}

// stream POSTs the multipart body write produces (send false: measured,
// file contents skipped) with its exact Content-Length, through a pipe,
// and returns the answer. A file that cannot be read is a *LocalError; a
// failed call an *upstreams.Error. The body can be produced again
// (GetBody), from the files' Open.
func (c *Client) stream(ctx context.Context, target, boundary string, write func(io.Writer, bool) error, files []File) (*http.Response, error) {
	length, err := measure(write, files)
	if err != nil {
		return nil, fmt.Errorf("files: measuring body: %w", err)
	}
	var mu sync.Mutex
	var bodies []*pipeBody
	open := func() io.ReadCloser {
		pr, pw := io.Pipe()
		b := &pipeBody{pr: pr, done: make(chan error, 1)}
		mu.Lock()
		bodies = append(bodies, b)
		mu.Unlock()
		go func() {
			err := write(pw, true)
			pw.CloseWithError(err)
			b.done <- err
		}()
		return b
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, open())
	if err != nil {
		return nil, fmt.Errorf("files: building request: %w", err)
	}
	req.ContentLength = length
	req.GetBody = func() (io.ReadCloser, error) { return open(), nil }
	req.Header.Set("Content-Type", "multipart/form-data; boundary="+boundary)
	req.Header.Set("Accept", "application/json")

	resp, err := c.doer.Do(req)
	// The transport may stop reading early (an error, or an answer before
	// the whole body); abandoning every body unblocks its writer, so that
	// each ends.
	mu.Lock()
	all := bodies
	mu.Unlock()
	var local *LocalError
	for _, b := range all {
		_ = b.Close()
		var l *LocalError
		if werr := <-b.done; errors.As(werr, &l) && local == nil {
			local = l
		}
	}
	if local != nil {
		if resp != nil {
			resp.Body.Close()
		}
		return nil, local
	}
	if err != nil {
		return nil, upstreams.TransportError(ctx, Name, err)
	}
	return resp, nil
}

// pipeBody is a request body whose Close abandons the pipe, so that its
// writer never blocks on a reader that went away; done receives the
// writer's outcome.
type pipeBody struct {
	pr   *io.PipeReader
	done chan error
}

func (b *pipeBody) Read(p []byte) (int, error) { return b.pr.Read(p) }

func (b *pipeBody) Close() error { return b.pr.CloseWithError(errBodyAbandoned) }

// measure is the exact byte count write produces with the files' contents.
func measure(write func(io.Writer, bool) error, files []File) (int64, error) {
	var c countingWriter
	if err := write(&c, false); err != nil {
		return 0, err
	}
	for _, f := range files {
		c.n += f.Size
	}
	return c.n, nil
}

// validAPIVersion accepts "35.0" and "v35.0".
func validAPIVersion(v string) bool {
	major, minor, ok := strings.Cut(strings.TrimPrefix(v, "v"), ".")
	return ok && digits(major) && digits(minor)
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

var errBodyAbandoned = errors.New("files: request body no longer read")

func check(subjectID string, files []File) error {
	switch {
	case strings.TrimSpace(subjectID) == "":
		return ErrNoSubject
	case len(files) == 0:
		return ErrNoFiles
	case len(files) > MaxFiles:
		return ErrTooManyFiles
	}
	for _, f := range files {
		if f.Open == nil || f.Size < 0 {
			return ErrBadFile
		}
	}
	return nil
}
