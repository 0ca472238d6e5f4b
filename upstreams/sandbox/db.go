// Package sandbox holds the reference servers of the backend contracts of
// UPSTREAMS.md: the account controller (B1), a Flowable-compatible workflow
// engine (B2), the batch file upload (B3), the data API (B4) and the public
// feed (B5). The gateway starts them on loopback when an upstream's URL is
// "sandbox" and talks to them over HTTP like to any real backend; the tests
// use them too. State lives in one SQLite file under the data directory.
package sandbox

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite" // registers the "sqlite" driver (pure Go, no cgo)
)

// DBFile is the name of the sandbox's SQLite file inside the data directory.
const DBFile = "sandbox.db"

// OpenDB opens (creating if needed) dataDir/sandbox.db with WAL journaling
// and a busy timeout, so that concurrent writers wait instead of failing.
// Each sandbox server creates its own tables on it.
func OpenDB(dataDir string) (*sql.DB, error) {
	if err := os.MkdirAll(dataDir, 0o750); err != nil {
		return nil, fmt.Errorf("creating data dir %q: %w", dataDir, err)
	}
	dsn := "file:" + filepath.Join(dataDir, DBFile) +
		"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("opening sandbox db: %w", err)
	}
	// One writer at a time is what SQLite allows; a single connection also
	// makes transactions serialise instead of failing with SQLITE_BUSY.
	db.SetMaxOpenConns(1)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening sandbox db: %w", err)
	}
	return db, nil
}

// Field is one column of a sandbox record type, named as the backend names
// it (the internal name the gateway's key map starts from).
type Field struct {
	Name string
	// Type is the data API describe type: id, string, textarea, picklist,
	// url, phone, int, currency, reference.
	Type   string
	Label  string
	Length int
}

// AccountFields returns the columns of the accounts table, in order: every
// field of the Account model of config.yaml. Numbers are stored as
// REAL/INTEGER, everything else as TEXT; a NULL column is a null member.
func AccountFields() []Field {
	return []Field{
		{"Id", "id", "Account ID", 18},
		{"Name", "string", "Account Name", 255},
		{"External_Id__c", "string", "External Id", 40},
		{"SicDesc", "string", "SIC Description", 80},
		{"AccountSource", "picklist", "Account Source", 40},
		{"Site", "string", "Account Site", 80},
		{"Rating", "picklist", "Account Rating", 40},
		{"Description", "textarea", "Account Description", 32000},
		{"TickerSymbol", "string", "Ticker Symbol", 20},
		{"Ownership", "picklist", "Ownership", 40},
		{"NumberOfEmployees", "int", "Employees", 0},
		{"BillingCountry", "string", "Billing Country", 80},
		{"BillingPostalCode", "string", "Billing Zip/Postal Code", 20},
		{"BillingState", "string", "Billing State/Province", 80},
		{"BillingCity", "string", "Billing City", 40},
		{"BillingStreet", "textarea", "Billing Street", 255},
		{"ParentId", "reference", "Parent Account ID", 18},
		{"Type", "picklist", "Account Type", 40},
		{"Total_Assets__c", "currency", "Total Assets", 0},
		{"PhotoUrl", "url", "Photo URL", 255},
		{"Website", "url", "Website", 255},
		{"AccountNumber", "string", "Account Number", 40},
		{"Fax", "phone", "Account Fax", 40},
		{"Phone", "phone", "Account Phone", 40},
	}
}

// ContactFields returns the columns of the contacts table, in order.
func ContactFields() []Field {
	return []Field{
		{"Id", "id", "Contact ID", 18},
		{"AccountId", "reference", "Account ID", 18},
		{"FirstName", "string", "First Name", 40},
		{"LastName", "string", "Last Name", 80},
		{"Name", "string", "Full Name", 121},
		{"Title", "string", "Title", 128},
		{"Department", "string", "Department", 80},
		{"Email", "email", "Email", 80},
		{"Phone", "phone", "Business Phone", 40},
		{"MailingCity", "string", "Mailing City", 40},
		{"MailingCountry", "string", "Mailing Country", 80},
	}
}

// EnsureSchema creates the accounts and contacts tables when they are
// missing. The account controller seeds accounts, the data API seeds
// contacts; both read these tables.
func EnsureSchema(db *sql.DB) error {
	for table, fields := range map[string][]Field{"accounts": AccountFields(), "contacts": ContactFields()} {
		if _, err := db.Exec(createTableSQL(table, fields)); err != nil {
			return fmt.Errorf("creating table %s: %w", table, err)
		}
	}
	return nil
}

// columnType is the SQLite column type that stores a field of describe type t.
func columnType(t string) string {
	switch t {
	case "int":
		return "INTEGER"
	case "currency", "double", "percent":
		return "REAL"
	}
	return "TEXT"
}

func createTableSQL(table string, fields []Field) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE IF NOT EXISTS " + table + " (")
	for i, f := range fields {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`"` + f.Name + `" ` + columnType(f.Type))
		if f.Name == "Id" {
			b.WriteString(" PRIMARY KEY")
		}
	}
	b.WriteString(", created_seq INTEGER)")
	return b.String()
}
