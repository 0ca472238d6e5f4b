package dataapi

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/restgate/gateway/upstreams/sandbox/sfdc"
)

// seedContactCount is how many contacts an empty contacts table receives.
const seedContactCount = 40

// seedContacts fills an empty contacts table with realistic contacts,
// attached round-robin to the existing accounts (AccountId null when there
// are none). The ids are deterministic, so every fresh sandbox has the same
// contacts.
func seedContacts(db *sql.DB) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	var n int
	if err := tx.QueryRow(`SELECT COUNT(*) FROM contacts`).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	var accounts []string
	rows, err := tx.Query(`SELECT "Id" FROM accounts ORDER BY rowid`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		accounts = append(accounts, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	users := seedUsers()
	for i, u := range users {
		if _, err := tx.Exec(`INSERT OR IGNORE INTO users ("Id", "Name", "Email", "Username", created_seq) VALUES (?, ?, ?, ?, ?)`,
			u[0], u[1], u[2], u[3], i+1); err != nil {
			return fmt.Errorf("inserting user %s: %w", u[0], err)
		}
	}
	stmt, err := tx.Prepare(`INSERT INTO contacts ("Id", "AccountId", "FirstName", "LastName", "Name",
		"Title", "Department", "Email", "Phone", "MailingCity", "MailingCountry", "OwnerId", "Description",
		"Description__c", "Preferred_Channel__c", "PreferredChannel__c", created_seq)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	channels := []string{"Email", "Phone", "Chat"}
	for i, c := range seedContactRows() {
		var account any
		if len(accounts) > 0 {
			account = accounts[i%len(accounts)]
		}
		if _, err := stmt.Exec(c.id, account, c.first, c.last, c.first+" "+c.last, c.title, c.department,
			c.email, c.phone, c.city, c.country, users[i%len(users)][0], "Met at "+c.city,
			"Key contact in "+c.department, channels[i%3], channels[(i+1)%3], i+1); err != nil {
			return fmt.Errorf("inserting contact %s: %w", c.id, err)
		}
	}
	return tx.Commit()
}

// seedUsers are the users that own the seeded contacts: Id, Name, Email,
// Username.
func seedUsers() [][4]string {
	return [][4]string{
		{"005xx000001SwiUAAS", "Ada Integration", "ada@example.com", "ada@example.com.sandbox"},
		{"005xx000001SwiVAAS", "Grace Owner", "grace@example.com", "grace@example.com.sandbox"},
		{"005xx000001SwiWAAS", "Linus Sales", "linus@example.com", "linus@example.com.sandbox"},
	}
}

type seedContact struct {
	id, first, last, title, department, email, phone, city, country string
}

func seedContactRows() []seedContact {
	firsts := []string{"Olivia", "Liam", "Emma", "Noah", "Ava", "Mateo", "Sofia", "Lucas", "Amelia", "Ethan",
		"Mia", "Hiroshi", "Priya", "Jonas", "Chloe", "Omar", "Grace", "Diego", "Hannah", "Wei"}
	lasts := []string{"Johnson", "Garcia", "Müller", "Nguyen", "O'Brien", "Rossi", "Kowalski", "Tanaka",
		"Patel", "Dubois", "Andersen", "Silva", "Okafor", "Schmidt", "Lee", "Novak", "Fischer"}
	titles := []string{"VP, Finance", "Procurement Manager", "Chief Technology Officer", "Account Executive",
		"Director of Operations", "Senior Buyer", "IT Manager", "Head of Marketing"}
	departments := []string{"Finance", "Procurement", "Technology", "Sales", "Operations", "Purchasing", "IT", "Marketing"}
	cities := [][2]string{{"San Francisco", "USA"}, {"Chicago", "USA"}, {"Austin", "USA"}, {"London", "United Kingdom"},
		{"Berlin", "Germany"}, {"Paris", "France"}, {"Toronto", "Canada"}, {"Tokyo", "Japan"}, {"Sydney", "Australia"}}
	rng := rand.New(rand.NewPCG(35, 2016))
	out := make([]seedContact, 0, seedContactCount)
	for i := range seedContactCount {
		first, last := firsts[i%len(firsts)], lasts[(i*7)%len(lasts)]
		city := cities[i%len(cities)]
		local := strings.ToLower(first + "." + strings.NewReplacer("'", "", "ü", "ue").Replace(last))
		out = append(out, seedContact{
			id:    "003" + contactBase62(rng, 15),
			first: first, last: last,
			title:      titles[i%len(titles)],
			department: departments[i%len(departments)],
			email:      local + "@example.com",
			phone:      fmt.Sprintf("(555) %03d-%04d", 200+i*3, 1000+rng.IntN(9000)),
			city:       city[0], country: city[1],
		})
	}
	return out
}

func contactBase62(rng *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = sfdc.IDAlphabet[rng.IntN(len(sfdc.IDAlphabet))]
	}
	return string(b)
}
