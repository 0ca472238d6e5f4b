package files

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

const schema = `CREATE TABLE IF NOT EXISTS files_items (
	id TEXT PRIMARY KEY,
	community_id TEXT NOT NULL,
	subject_id TEXT NOT NULL,
	title TEXT NOT NULL,
	filename TEXT NOT NULL,
	stored_path TEXT NOT NULL,
	size INTEGER NOT NULL,
	content_id TEXT NOT NULL,
	created_date TEXT NOT NULL
)`

// feedItem is one feed item the batch created, as stored and as answered.
type feedItem struct {
	ID          string
	CommunityID string
	SubjectID   string
	Title       string
	Filename    string
	StoredPath  string
	Size        int64
	ContentID   string
	Created     time.Time
}

// feedItemJSON is the item in the shape of a Connect API feed item: the
// members a client reads, not the whole representation.
func (it feedItem) feedItemJSON(version string) map[string]any {
	content := map[string]any{
		"id":            it.ContentID,
		"title":         it.Title,
		"fileExtension": strings.TrimPrefix(filepath.Ext(it.Filename), "."),
		"fileSize":      strconv.FormatInt(it.Size, 10),
		"mimeType":      "application/octet-stream",
	}
	return map[string]any{
		"id":              it.ID,
		"type":            "ContentPost",
		"feedElementType": "FeedItem",
		"parent":          map[string]any{"id": it.SubjectID},
		"createdDate":     it.Created.UTC().Format("2006-01-02T15:04:05.000Z"),
		"url":             "/services/data/" + version + "/chatter/feed-elements/" + it.ID,
		"capabilities":    map[string]any{"content": content},
	}
}

func insertItems(ctx context.Context, db *sql.DB, items []feedItem) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, it := range items {
		_, err := tx.ExecContext(ctx, `INSERT INTO files_items
			(id, community_id, subject_id, title, filename, stored_path, size, content_id, created_date)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			it.ID, it.CommunityID, it.SubjectID, it.Title, it.Filename, it.StoredPath, it.Size, it.ContentID,
			it.Created.UTC().Format(time.RFC3339Nano))
		if err != nil {
			return fmt.Errorf("storing feed item %s: %w", it.ID, err)
		}
	}
	return tx.Commit()
}

// save streams one binary part to dir/<itemID>/<safe filename>,
// through buf so that a part of any size costs the same memory.
func save(dir, itemID, filename string, src io.Reader, buf []byte) (path string, n int64, err error) {
	itemDir := filepath.Join(dir, itemID)
	if err := os.MkdirAll(itemDir, 0o750); err != nil {
		return "", 0, err
	}
	path = filepath.Join(itemDir, safeName(filename))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o640)
	if err != nil {
		return "", 0, err
	}
	// The struct hides *os.File's ReadFrom, which would ignore buf.
	n, err = io.CopyBuffer(struct{ io.Writer }{f}, src, buf)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return path, n, err
}

// safeName keeps a client's filename from leaving its directory or
// carrying characters a file system may refuse.
func safeName(name string) string {
	name = filepath.Base(strings.ReplaceAll(name, `\`, "/"))
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	safe := strings.TrimLeft(b.String(), ".")
	if len(safe) > 200 {
		safe = safe[len(safe)-200:]
	}
	if safe == "" {
		safe = "file"
	}
	return safe
}
