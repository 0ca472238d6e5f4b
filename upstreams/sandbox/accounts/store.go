package accounts

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/restgate/gateway/mapping"
	"github.com/restgate/gateway/upstreams/sandbox/sfdc"
)

// keyPrefix starts every account id, as in Salesforce.
const keyPrefix = "001"

// errNotFound is what the store returns for an unknown id.
var errNotFound = errors.New("account not found")

// fieldValue is one column to write: its index in sfdc.AccountFields and a
// value of the column's Go type (string, int64, float64) or nil for NULL.
type fieldValue struct {
	index int
	value any
}

// store reads and writes the accounts table. Its fields are set once
// by newStore and only read afterwards.
type store struct {
	db        *sql.DB
	fields    []sfdc.Field
	byName    map[string]int // lower-cased field name -> index
	keys      [][]byte       // `"Name":` per field, for writing records
	columns   string         // quoted column list in field order
	nameIndex int
}

func newStore(db *sql.DB) *store {
	s := &store{db: db, fields: sfdc.AccountFields(), byName: make(map[string]int)}
	quoted := make([]string, len(s.fields))
	for i, f := range s.fields {
		s.byName[strings.ToLower(f.Name)] = i
		s.keys = append(s.keys, append(mapping.AppendString(nil, f.Name), ':'))
		quoted[i] = `"` + f.Name + `"`
		if f.Name == "Name" {
			s.nameIndex = i
		}
	}
	s.columns = strings.Join(quoted, ", ")
	return s
}

// scanTargets returns a row of values and the pointers to scan into it, one
// per field.
func (s *store) scanTargets() (vals, ptrs []any) {
	vals = make([]any, len(s.fields))
	ptrs = make([]any, len(s.fields))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	return vals, ptrs
}

// idWhere matches an 18-character id exactly and a 15-character id against
// the first 15 characters, as Salesforce treats its two id forms.
func idWhere(id string) string {
	if len(id) == 15 {
		return `substr("Id", 1, 15) = ?`
	}
	return `"Id" = ?`
}

// list writes the JSON array of the accounts in creation order; limit -1
// means all.
func (s *store) list(ctx context.Context, limit, offset int) ([]byte, error) {
	rows, err := s.db.QueryContext(ctx,
		"SELECT "+s.columns+` FROM accounts ORDER BY created_seq, "Id" LIMIT ? OFFSET ?`, limit, offset)
	if err != nil {
		return nil, fmt.Errorf("listing accounts: %w", err)
	}
	defer rows.Close()
	vals, ptrs := s.scanTargets()
	buf := make([]byte, 0, 8192)
	buf = append(buf, '[')
	for n := 0; rows.Next(); n++ {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("reading account: %w", err)
		}
		if n > 0 {
			buf = append(buf, ',')
		}
		buf = s.appendRecord(buf, vals)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing accounts: %w", err)
	}
	return append(buf, ']'), nil
}

// get returns one account as a JSON object, or errNotFound.
func (s *store) get(ctx context.Context, id string) ([]byte, error) {
	vals, ptrs := s.scanTargets()
	err := s.db.QueryRowContext(ctx, "SELECT "+s.columns+" FROM accounts WHERE "+idWhere(id), id).Scan(ptrs...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("reading account: %w", err)
	}
	return s.appendRecord(make([]byte, 0, 1024), vals), nil
}

// insert stores a new account with a fresh id and returns the id. The
// list position is taken in the same statement, so concurrent creates
// never share one.
func (s *store) insert(ctx context.Context, vals []fieldValue) (string, error) {
	id := sfdc.NewID(keyPrefix)
	if err := s.insertWithID(ctx, s.db, id, vals); err != nil {
		return "", err
	}
	return id, nil
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func (s *store) insertWithID(ctx context.Context, db execer, id string, vals []fieldValue) error {
	cols := []string{`"Id"`}
	args := []any{id}
	for _, v := range vals {
		if s.fields[v.index].Name == "Id" {
			continue
		}
		cols = append(cols, `"`+s.fields[v.index].Name+`"`)
		args = append(args, v.value)
	}
	q := "INSERT INTO accounts (" + strings.Join(cols, ", ") + ", created_seq) VALUES (" +
		strings.Repeat("?, ", len(cols)) + "(SELECT COALESCE(MAX(created_seq), 0) + 1 FROM accounts))"
	if _, err := db.ExecContext(ctx, q, args...); err != nil {
		return fmt.Errorf("inserting account: %w", err)
	}
	return nil
}

// update sets the given fields of one account and keeps the others.
func (s *store) update(ctx context.Context, id string, vals []fieldValue) error {
	var sets []string
	var args []any
	for _, v := range vals {
		if s.fields[v.index].Name == "Id" {
			continue
		}
		sets = append(sets, `"`+s.fields[v.index].Name+`" = ?`)
		args = append(args, v.value)
	}
	if len(sets) == 0 {
		var one int
		err := s.db.QueryRowContext(ctx, "SELECT 1 FROM accounts WHERE "+idWhere(id), id).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return errNotFound
		}
		return err
	}
	res, err := s.db.ExecContext(ctx,
		"UPDATE accounts SET "+strings.Join(sets, ", ")+" WHERE "+idWhere(id), append(args, id)...)
	if err != nil {
		return fmt.Errorf("updating account: %w", err)
	}
	return affectedOne(res)
}

// remove deletes one account and detaches its child accounts, in one
// transaction so that no child is left pointing at a missing parent.
func (s *store) remove(ctx context.Context, id string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("deleting account: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	var full string
	err = tx.QueryRowContext(ctx, `SELECT "Id" FROM accounts WHERE `+idWhere(id), id).Scan(&full)
	if errors.Is(err, sql.ErrNoRows) {
		return errNotFound
	}
	if err != nil {
		return fmt.Errorf("deleting account: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE accounts SET "ParentId" = NULL WHERE "ParentId" = ?`, full); err != nil {
		return fmt.Errorf("detaching child accounts: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM accounts WHERE "Id" = ?`, full); err != nil {
		return fmt.Errorf("deleting account: %w", err)
	}
	return tx.Commit()
}

func affectedOne(res sql.Result) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return errNotFound
	}
	return nil
}

// parseFields reads a JSON object of account fields. Field names match
// case-insensitively; unknown names are ignored, as the original service
// does. Values are coerced to the column's type; what cannot be is an error.
func (s *store) parseFields(body []byte) ([]fieldValue, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil || obj == nil {
		return nil, errors.New("body must be a JSON object")
	}
	vals := make([]fieldValue, 0, len(obj))
	for name, raw := range obj {
		i, ok := s.byName[strings.ToLower(name)]
		if !ok || s.fields[i].Name == "Id" {
			continue
		}
		v, err := coerce(s.fields[i], raw)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", s.fields[i].Name, err)
		}
		vals = append(vals, fieldValue{index: i, value: v})
	}
	slices.SortFunc(vals, func(a, b fieldValue) int { return a.index - b.index })
	return vals, nil
}

func coerce(f sfdc.Field, raw json.RawMessage) (any, error) {
	if string(raw) == "null" {
		return nil, nil
	}
	text := string(raw)
	quoted := raw[0] == '"'
	if quoted {
		if err := json.Unmarshal(raw, &text); err != nil {
			return nil, err
		}
	}
	switch sfdc.ColumnType(f.Type) {
	case "INTEGER":
		if n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64); err == nil {
			return n, nil
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil || x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			return nil, errors.New("not an integer")
		}
		return int64(x), nil
	case "REAL":
		x, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, errors.New("not a number")
		}
		return x, nil
	}
	if !quoted && (raw[0] == '{' || raw[0] == '[') {
		return nil, errors.New("not a text value")
	}
	if f.Length > 0 && utf8.RuneCountInString(text) > f.Length {
		return nil, fmt.Errorf("longer than %d characters", f.Length)
	}
	return text, nil
}

func hasField(vals []fieldValue, index int) bool {
	_, found := fieldOf(vals, index)
	return found
}

func fieldOf(vals []fieldValue, index int) (any, bool) {
	for _, v := range vals {
		if v.index == index {
			return v.value, true
		}
	}
	return nil, false
}
