package config

import (
	"net/mail"
	"net/url"
)

// DefaultContactName is server.contact.name when none is configured.
const DefaultContactName = "API support"

// Contact is who the OpenAPI documents name for questions about the API
// (info.contact): a client team reading a generated client finds it there.
type Contact struct {
	// Name is the person or team. Default "API support".
	Name string `yaml:"name"`
	// URL is a page that says how to reach them (https://...). Default
	// empty: none is named.
	URL string `yaml:"url"`
	// Email is an address that reaches them. Default empty: none is named.
	Email string `yaml:"email"`
}

func validateContact(p *problems, path string, c *Contact) {
	if c.URL != "" {
		if u, err := url.Parse(c.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			p.add(path+".url", "must be an absolute http or https URL, not %q", c.URL)
		}
	}
	if c.Email != "" {
		if a, err := mail.ParseAddress(c.Email); err != nil || a.Name != "" || a.Address != c.Email {
			p.add(path+".email", "must be an address such as api@example.com, not %q", c.Email)
		}
	}
}
