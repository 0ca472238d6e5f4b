package sfdc

import (
	"database/sql"
	"fmt"
	"strings"
)

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
		{"OwnerId", "reference", "Owner ID", 18},
		{"Description", "textarea", "Contact Description", 32000},
		// Custom fields as real orgs have them: one whose derived name is a
		// standard field's, two whose derived names are each other's.
		{"Description__c", "string", "Internal Description", 255},
		{"Preferred_Channel__c", "picklist", "Preferred Channel", 40},
		{"PreferredChannel__c", "picklist", "Preferred Channel (legacy)", 40},
	}
}

// UserFields returns the columns of the users table, in order: the users
// that own contacts.
func UserFields() []Field {
	return []Field{
		{"Id", "id", "User ID", 18},
		{"Name", "string", "Full Name", 121},
		{"Email", "email", "Email", 128},
		{"Username", "string", "Username", 80},
	}
}

// EnsureTables creates the accounts and contacts tables when they are
// missing. The account controller seeds accounts, the data API seeds
// contacts; both read these tables.
func EnsureTables(db *sql.DB) error {
	for table, fields := range map[string][]Field{"accounts": AccountFields(), "contacts": ContactFields(), "users": UserFields()} {
		if _, err := db.Exec(createTableSQL(table, fields)); err != nil {
			return fmt.Errorf("creating table %s: %w", table, err)
		}
		if err := addMissingColumns(db, table, fields); err != nil {
			return fmt.Errorf("updating table %s: %w", table, err)
		}
	}
	return nil
}

// addMissingColumns adds the fields a table made by an older sandbox
// lacks, so a kept ./data/sandbox.db serves the fields of today.
func addMissingColumns(db *sql.DB, table string, fields []Field) error {
	rows, err := db.Query(`SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return err
		}
		have[name] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, f := range fields {
		if !have[f.Name] {
			if _, err := db.Exec("ALTER TABLE " + table + ` ADD COLUMN "` + f.Name + `" ` + ColumnType(f.Type)); err != nil {
				return err
			}
		}
	}
	return nil
}

// ColumnType is the SQLite column type that stores a field of describe type
// t: INTEGER, REAL or TEXT.
func ColumnType(t string) string {
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
		b.WriteString(`"` + f.Name + `" ` + ColumnType(f.Type))
		if f.Name == "Id" {
			b.WriteString(" PRIMARY KEY")
		}
	}
	b.WriteString(", created_seq INTEGER)")
	return b.String()
}
