package files

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/textproto"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Part names and content types of the batch request, as the Connect REST API
// documents them: the rich input part must come first, named "json", and
// each binary part is named by its input's binaryPartNames.
const (
	jsonPartName    = "json"
	jsonContentType = "application/json; charset=UTF-8"
	fileContentType = "application/octet-stream"
)

// copyBufferSize bounds the memory of one upload whatever its files' sizes.
const copyBufferSize = 32 << 10

type batchInput struct {
	BinaryPartNames []string  `json:"binaryPartNames"`
	RichInput       richInput `json:"richInput"`
}

type richInput struct {
	SubjectID       string       `json:"subjectId"`
	Capabilities    capabilities `json:"capabilities"`
	FeedElementType string       `json:"feedElementType"`
}

type capabilities struct {
	Content contentInput `json:"content"`
}

type contentInput struct {
	Title string `json:"title"`
}

func partName(i int) string { return "file" + strconv.Itoa(i+1) }

// batchJSON is the rich input part: one feed item per file, each naming its
// one binary part.
func batchJSON(subjectID string, files []File) ([]byte, error) {
	inputs := make([]batchInput, len(files))
	for i, f := range files {
		inputs[i] = batchInput{
			BinaryPartNames: []string{partName(i)},
			RichInput: richInput{
				SubjectID:       subjectID,
				Capabilities:    capabilities{Content: contentInput{Title: f.Title}},
				FeedElementType: "FeedItem",
			},
		}
	}
	return json.Marshal(struct {
		Inputs []batchInput `json:"inputs"`
	}{inputs})
}

// writeBody writes the whole multipart body to w: the "json" part holding
// rich, then each file as the part name(i) says. It is the same code that
// measures the body (send false: file contents skipped) and that sends
// it, so the announced Content-Length cannot drift from what is written.
func writeBody(w io.Writer, boundary string, rich []byte, files []File, name func(int) string, send bool) error {
	mw := multipart.NewWriter(w)
	if err := mw.SetBoundary(boundary); err != nil {
		return err
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="`+jsonPartName+`"`)
	h.Set("Content-Type", jsonContentType)
	pw, err := mw.CreatePart(h)
	if err != nil {
		return err
	}
	if _, err := pw.Write(rich); err != nil {
		return err
	}
	var buf []byte
	if send {
		buf = make([]byte, copyBufferSize)
	}
	for i, f := range files {
		// CreateFormFile writes exactly the documented headers:
		// form-data; name="..."; filename="..." and application/octet-stream.
		pw, err := mw.CreateFormFile(name(i), headerSafe(f.Filename))
		if err != nil {
			return err
		}
		if send {
			if err := copyFile(pw, f, buf); err != nil {
				return err
			}
		}
	}
	return mw.Close()
}

// copyFile streams one file and checks it has the size it announced, which
// the Content-Length of the request was computed from.
func copyFile(w io.Writer, f File, buf []byte) error {
	rc, err := f.Open()
	if err != nil {
		return &LocalError{Filename: f.Filename, Err: err}
	}
	defer rc.Close()
	n, err := io.CopyBuffer(w, onlyReader{rc}, buf)
	if err != nil {
		var re readError
		if errors.As(err, &re) {
			return &LocalError{Filename: f.Filename, Err: re.err}
		}
		return err
	}
	if n != f.Size {
		return &LocalError{Filename: f.Filename, Err: fmt.Errorf("read %d bytes, announced %d", n, f.Size)}
	}
	return nil
}

// onlyReader tells the file's read errors from the pipe's write errors, and
// hides WriterTo so that the caller's buffer is used.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) {
	n, err := o.r.Read(p)
	if err != nil && err != io.EOF {
		err = readError{err}
	}
	return n, err
}

type readError struct{ err error }

func (e readError) Error() string { return e.err.Error() }

// headerSafe replaces what cannot stand in a part header: control
// characters (a client can smuggle them in through an RFC 2231 encoded
// filename*) and invalid UTF-8. Quotes, backslashes and line breaks are
// escaped by the multipart writer itself.
func headerSafe(name string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return '_'
		}
		return r
	}, strings.ToValidUTF8(name, "_"))
}

// countingWriter counts bytes and keeps none.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}
