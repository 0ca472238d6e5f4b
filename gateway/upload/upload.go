// Package upload reads a client's multipart/form-data file upload without
// holding any file in memory: each file part is spooled to a temporary file
// in a directory the caller chooses, within limits the caller sets, and handed
// back as a File whose Open reads the spooled bytes.
//
// The form it accepts: one or more "file" parts, each with a filename; one
// "subjectId" field; optional "title" fields, the n-th title naming the n-th
// file. Any other part name is refused, so a misspelt field is an error
// instead of a silent default.
//
// The package uses the standard library only, so the files handler can use it
// without pulling in anything else.
package upload

import (
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"strings"
)

// Part names of the accepted form.
const (
	FieldFile      = "file"
	FieldSubjectID = "subjectId"
	FieldTitle     = "title"
)

// Defaults of Limits.
const (
	DefaultMaxFiles      = 500
	DefaultMaxTotalBytes = 1 << 30
	DefaultMaxFieldBytes = 4096
)

// copyBufferSize is the one buffer a Read uses to spool every file part; it
// bounds the memory of an upload whatever the size of its files.
const copyBufferSize = 32 << 10

// ErrTooLarge is returned when the upload's bytes (files and fields) exceed
// Limits.MaxTotalBytes, or when the request body was cut by an
// http.MaxBytesReader. The gateway answers it with 413.
var ErrTooLarge = errors.New("upload: request body too large")

// InputError says what is wrong with a client's form; the gateway answers it
// with a coded 400. Field is the form field at fault ("file", "subjectId",
// "title", the unknown part's name) or "" when the body itself is not valid
// multipart.
type InputError struct {
	Field  string
	Reason string
	// Err is the underlying parse error, if any.
	Err error
}

// Error names the field and the reason.
func (e *InputError) Error() string {
	if e.Field == "" {
		return "upload: " + e.Reason
	}
	return fmt.Sprintf("upload: field %q: %s", e.Field, e.Reason)
}

// Unwrap returns the underlying parse error, if any.
func (e *InputError) Unwrap() error { return e.Err }

// Limits bound one upload. The zero value of a field means its default.
type Limits struct {
	// MaxFiles caps the number of file parts. Default 500, the batch
	// upload's own limit.
	MaxFiles int
	// MaxTotalBytes caps the bytes of all parts' contents together (files
	// and fields; multipart framing not counted). Default 1 GiB.
	MaxTotalBytes int64
	// MaxFieldBytes caps one subjectId or title field. Default 4096.
	MaxFieldBytes int
	// Reserve, when not nil, is asked before every write of n bytes to the
	// spool (a disk budget shared with other uploads); its error stops the
	// upload and is returned wrapped. Nil: no budget.
	Reserve func(n int64) error
}

func (l Limits) withDefaults() Limits {
	if l.MaxFiles <= 0 {
		l.MaxFiles = DefaultMaxFiles
	}
	if l.MaxTotalBytes <= 0 {
		l.MaxTotalBytes = DefaultMaxTotalBytes
	}
	if l.MaxFieldBytes <= 0 {
		l.MaxFieldBytes = DefaultMaxFieldBytes
	}
	return l
}

// File is one spooled file part.
type File struct {
	// Title is the client's title for this file, or its filename.
	Title string
	// Filename is the base name the client gave.
	Filename string
	// Size is the number of bytes spooled.
	Size int64
	path string
}

// Open reads the spooled bytes from the start. It may be called more than
// once; every reader must be closed, and none may be used after
// Upload.Close.
func (f File) Open() (io.ReadCloser, error) {
	return os.Open(f.path)
}

// Upload is a read form whose files wait on disk. Close removes them.
type Upload struct {
	SubjectID string
	Files     []File
}

// Close removes the spooled files. It is safe to call more than once.
func (u *Upload) Close() error {
	var errs []error
	for i := range u.Files {
		if u.Files[i].path == "" {
			continue
		}
		if err := os.Remove(u.Files[i].path); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
		u.Files[i].path = ""
	}
	return errors.Join(errs...)
}

// Read consumes the whole form from mr, spooling file parts into dir (which
// must exist). On success the caller owns the returned Upload and must Close
// it; on error nothing is left in dir. The errors are *InputError and
// ErrTooLarge for what the client sent, anything else for a local failure
// (dir not writable, disk full).
func Read(mr *multipart.Reader, dir string, limits Limits) (*Upload, error) {
	r := &reader{
		mr:     mr,
		dir:    dir,
		limits: limits.withDefaults(),
		up:     &Upload{},
	}
	if err := r.readAll(); err != nil {
		_ = r.up.Close()
		return nil, err
	}
	return r.up, nil
}

type reader struct {
	mr         *multipart.Reader
	dir        string
	limits     Limits
	up         *Upload
	titles     []string
	haveSubj   bool
	totalBytes int64
	parts      int
	buf        []byte
}

func (r *reader) readAll() error {
	for {
		part, err := r.mr.NextPart()
		if errors.Is(err, io.EOF) {
			if r.parts == 0 {
				// Also what a body without the boundary looks like.
				return &InputError{Reason: "no parts in the multipart body"}
			}
			break
		}
		if err != nil {
			return bodyError(err)
		}
		r.parts++
		// On error the part is not drained: that would read the rest of
		// a body already refused.
		if err := r.readPart(part); err != nil {
			return err
		}
		part.Close()
	}
	return r.finish()
}

func (r *reader) readPart(part *multipart.Part) error {
	switch name := part.FormName(); name {
	case FieldFile:
		return r.spool(part)
	case FieldSubjectID:
		if r.haveSubj {
			return &InputError{Field: name, Reason: "given more than once"}
		}
		v, err := r.field(part)
		if err != nil {
			return err
		}
		r.up.SubjectID, r.haveSubj = strings.TrimSpace(v), true
		return nil
	case FieldTitle:
		if len(r.titles) >= r.limits.MaxFiles {
			return &InputError{Field: name, Reason: fmt.Sprintf("more than %d titles", r.limits.MaxFiles)}
		}
		v, err := r.field(part)
		if err != nil {
			return err
		}
		r.titles = append(r.titles, v)
		return nil
	case "":
		return &InputError{Reason: "a part without a form-data name"}
	default:
		return &InputError{Field: name, Reason: "unknown part name"}
	}
}

// field reads a small text field, refusing it past MaxFieldBytes.
func (r *reader) field(part *multipart.Part) (string, error) {
	max := int64(r.limits.MaxFieldBytes)
	b, err := io.ReadAll(io.LimitReader(part, max+1))
	if err != nil {
		return "", bodyError(err)
	}
	if int64(len(b)) > max {
		return "", &InputError{Field: part.FormName(), Reason: fmt.Sprintf("longer than %d bytes", max)}
	}
	if err := r.count(int64(len(b))); err != nil {
		return "", err
	}
	return string(b), nil
}

func (r *reader) count(n int64) error {
	r.totalBytes += n
	if r.totalBytes > r.limits.MaxTotalBytes {
		return ErrTooLarge
	}
	return nil
}

// spool copies one file part to a temp file, registering it in the Upload
// before the first byte so that every exit path removes it.
func (r *reader) spool(part *multipart.Part) error {
	name := part.FileName()
	if name == "" || name == "." || name == "/" || name == `\` {
		return &InputError{Field: FieldFile, Reason: "a file part without a filename"}
	}
	if len(r.up.Files) >= r.limits.MaxFiles {
		return &InputError{Field: FieldFile, Reason: fmt.Sprintf("more than %d files", r.limits.MaxFiles)}
	}
	tmp, err := os.CreateTemp(r.dir, "upload-*")
	if err != nil {
		return fmt.Errorf("upload: creating spool file: %w", err)
	}
	r.up.Files = append(r.up.Files, File{Filename: name, path: tmp.Name()})
	f := &r.up.Files[len(r.up.Files)-1]
	if r.buf == nil {
		r.buf = make([]byte, copyBufferSize)
	}
	// One byte past what is left tells an exact fit from an overflow.
	remaining := r.limits.MaxTotalBytes - r.totalBytes
	n, copyErr := io.CopyBuffer(spoolWriter{tmp, r.limits.Reserve}, io.LimitReader(part, remaining+1), r.buf)
	closeErr := tmp.Close()
	f.Size = n
	if copyErr != nil {
		var local writeError
		if errors.As(copyErr, &local) {
			return fmt.Errorf("upload: spooling %q: %w", name, local.error)
		}
		return bodyError(copyErr)
	}
	if closeErr != nil {
		return fmt.Errorf("upload: spooling %q: %w", name, closeErr)
	}
	return r.count(n)
}

func (r *reader) finish() error {
	if !r.haveSubj || r.up.SubjectID == "" {
		return &InputError{Field: FieldSubjectID, Reason: "missing"}
	}
	if len(r.up.Files) == 0 {
		return &InputError{Field: FieldFile, Reason: "no file given"}
	}
	if len(r.titles) > len(r.up.Files) {
		return &InputError{Field: FieldTitle, Reason: fmt.Sprintf("%d titles for %d files", len(r.titles), len(r.up.Files))}
	}
	for i := range r.up.Files {
		f := &r.up.Files[i]
		if i < len(r.titles) && strings.TrimSpace(r.titles[i]) != "" {
			f.Title = r.titles[i]
		} else {
			f.Title = f.Filename
		}
	}
	return nil
}

// bodyError classifies a failure to read the client's body: cut by a
// MaxBytesReader is ErrTooLarge, anything else is a malformed body.
func bodyError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return ErrTooLarge
	}
	return &InputError{Reason: "malformed multipart body: " + err.Error(), Err: err}
}

// spoolWriter writes to a spool file within the budget of reserve (nil:
// none). Its errors are writeErrors, told apart from the client's body
// failing; it hides *os.File's ReadFrom so that io.CopyBuffer uses the
// caller's buffer instead of allocating its own.
type spoolWriter struct {
	w       io.Writer
	reserve func(int64) error
}

func (o spoolWriter) Write(p []byte) (int, error) {
	if o.reserve != nil {
		if err := o.reserve(int64(len(p))); err != nil {
			return 0, writeError{err}
		}
	}
	n, err := o.w.Write(p)
	if err != nil {
		return n, writeError{err}
	}
	return n, nil
}

// writeError is a failure of the spool (disk full, budget spent), not of
// the client's body.
type writeError struct{ error }

func (e writeError) Unwrap() error { return e.error }
