// Package files is the adapter of the batch file upload (UPSTREAMS.md B3):
// the Salesforce Connect "feed elements, batch post" resource of API v35.0
// and earlier, which takes one multipart request holding a rich input part
// "json" and one binary part per feed item.
//
// The request body is produced while it is sent, through an io.Pipe, from
// readers the caller opens per file, so an upload of any size costs a fixed
// buffer. Because the body cannot be produced twice, the request is never
// retried. Failures of the backend are *upstreams.Error with Upstream
// "files"; a file the adapter itself cannot read is a *LocalError.
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

	"github.com/restgate/gateway/upstreams"
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
	url  string
	doer upstreams.Doer
}

// New returns a client of the batch resource of community communityID under
// baseURL (the instance URL, such as "https://example.my.salesforce.com";
// a trailing slash is ignored). apiVersion is "v35.0" or "35.0": binary parts
// in a feed post are refused by the backend from v36.0 on. The bearer token
// is not the adapter's concern: the shared client adds it from the
// configuration.
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
	path := "/services/data/v" + strings.TrimPrefix(apiVersion, "v") +
		"/connect/communities/" + url.PathEscape(communityID) + "/chatter/feed-elements/batch"
	return &Client{url: strings.TrimRight(baseURL, "/") + path, doer: doer}, nil
}

// Upload posts one feed item per file on subjectID's feed, in ONE request,
// and returns one Result per file in the same order. A file the backend
// refused is a Result with its 4xx/5xx StatusCode and Errors, not an error:
// the call's error is for the whole request failing.
func (c *Client) Upload(ctx context.Context, subjectID string, files []File) ([]Result, error) {
	if err := check(subjectID, files); err != nil {
		return nil, err
	}
	rich, err := batchJSON(subjectID, files)
	if err != nil {
		return nil, fmt.Errorf("files: encoding batch input: %w", err)
	}
	boundary := multipart.NewWriter(io.Discard).Boundary()
	length, err := bodyLength(boundary, rich, files)
	if err != nil {
		return nil, fmt.Errorf("files: measuring body: %w", err)
	}

	pr, pw := io.Pipe()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, pr)
	if err != nil {
		return nil, fmt.Errorf("files: building request: %w", err)
	}
	req.ContentLength = length
	req.GetBody = nil
	req.Header.Set("Content-Type", "multipart/form-data; boundary="+boundary)
	req.Header.Set("Accept", "application/json")

	written := make(chan error, 1)
	go func() {
		err := writeBody(pw, boundary, rich, files, true)
		pw.CloseWithError(err)
		written <- err
	}()
	resp, err := c.doer.Do(req)
	// The transport may stop reading early (an error, or an answer before
	// the whole body); this unblocks the writer so that it always ends.
	pr.CloseWithError(errBodyAbandoned)
	writeErr := <-written

	var local *LocalError
	if errors.As(writeErr, &local) {
		if resp != nil {
			resp.Body.Close()
		}
		return nil, local
	}
	if err != nil {
		return nil, upstreams.TransportError(ctx, Name, err)
	}
	defer resp.Body.Close()
	return readAnswer(ctx, resp, files)
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
