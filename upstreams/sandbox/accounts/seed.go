package accounts

import (
	"context"
	"fmt"

	"github.com/restgate/gateway/upstreams/sandbox/sfdc"
)

// seedAccount is one demo account. Empty strings and zero numbers are stored
// as NULL, so the seed has the gaps real CRM data has.
type seedAccount struct {
	name, sic, source, rating, ownership, kind string
	employees                                  int64
	assets                                     float64
	country, state, city, postal, street       string
	phone, fax, website, ticker                string
	parent                                     int // 1-based index of the parent seed, 0 for none
	description                                string
}

// seedAccounts returns the 36 accounts a fresh sandbox starts with.
func seedAccounts() []seedAccount {
	return []seedAccount{
		{"Burlington Textiles Corp of America", "Broadwoven Fabric Mills, Cotton", "Web", "Warm", "Public", "Customer - Direct", 9000, 350000000, "United States", "NC", "Burlington", "27215", "525 S. Lexington Ave", "(336) 222-7000", "(336) 222-8000", "www.burlington.com", "BTXT", 0, "Cotton and blended fabrics for apparel and home furnishing makers."},
		{"Pyramid Construction Inc.", "General Building Contractors", "Phone Inquiry", "", "Public", "Customer - Channel", 2680, 950000000, "France", "", "Paris", "75251", "2 Place Jussieu", "(014) 427-4427", "(014) 427-4428", "www.pyramid.com", "PYR", 0, ""},
		{"Dickenson plc", "Computer Peripheral Equipment", "Purchased List", "", "Public", "Customer - Channel", 120, 50000000, "United States", "KS", "Lawrence", "66045", "1301 Hoch Drive", "(785) 241-6200", "(785) 241-6201", "dickenson-consulting.com", "DKN", 0, ""},
		{"Grand Hotels & Resorts Ltd", "Hotels and Motels", "External Referral", "Warm", "Public", "Customer - Direct", 5600, 500000000, "United States", "IL", "Chicago", "60601", "2334 N. Michigan Avenue, Suite 1500", "(312) 596-1000", "(312) 596-1500", "www.grandhotels.com", "GHTL", 0, "Chain of business hotels in the Midwest; renewals handled in Q3."},
		{"United Oil & Gas Corp.", "Crude Petroleum and Natural Gas", "Partner Referral", "Hot", "Public", "Customer - Direct", 145000, 5600000000, "United States", "NY", "New York", "10019", "1301 Avenue of the Americas", "(212) 842-5500", "(212) 842-5501", "www.uos.com", "UOS", 0, "World's third largest oil and gas company."},
		{"United Oil & Gas, UK", "Crude Petroleum and Natural Gas", "Partner Referral", "", "Subsidiary", "Customer - Direct", 24000, 1200000000, "United Kingdom", "", "London", "EC2V 6DB", "Kings Park, 17th Avenue, Team Valley Trading Estate", "+44 191 4956203", "+44 191 4956620", "www.uos.com", "", 5, ""},
		{"United Oil & Gas, Singapore", "Crude Petroleum and Natural Gas", "Partner Referral", "", "Subsidiary", "Customer - Direct", 3000, 300000000, "Singapore", "", "Singapore", "018960", "9 Tagore Lane", "(650) 450-8810", "(650) 450-8820", "www.uos.com", "", 5, ""},
		{"Edge Communications", "Telephone Communications", "Web", "Hot", "Public", "Customer - Direct", 1000, 139000000, "United States", "TX", "Austin", "78701", "312 Constitution Place", "(512) 757-6000", "(512) 757-9000", "www.edgecomm.com", "EDGE", 0, "Edge, founded in 1998, is a start-up based in Austin, TX."},
		{"Express Logistics and Transport", "Trucking, Except Local", "Phone Inquiry", "Cold", "Public", "Customer - Channel", 12300, 950000000, "United States", "OR", "Portland", "97201", "620 SW 5th Avenue Suite 400", "(503) 421-7800", "(503) 421-7801", "www.expressl&t.net", "EXLT", 0, "Commercial logistics and transportation."},
		{"University of Arizona", "Colleges, Universities and Professional Schools", "Web", "Warm", "Other", "Customer - Direct", 39000, 0, "United States", "AZ", "Tucson", "85721", "888 N Euclid Ave", "(520) 773-9050", "(520) 773-9060", "www.universityofarizona.com", "", 0, "Leading university in AZ offering undergraduate and graduate programs."},
		{"GenePoint", "Biological Products", "Trade Show", "Cold", "Private", "Customer - Channel", 265, 30000000, "United States", "CA", "Mountain View", "94043", "345 Shoreline Park", "(650) 867-3450", "(650) 867-9895", "www.genepoint.com", "", 0, "Genomics company engaged in mapping and sequencing of the human genome."},
		{"sForce", "Prepackaged Software", "", "", "", "", 0, 0, "United States", "CA", "San Francisco", "94105", "The Landmark @ One Market", "(415) 901-7000", "(415) 901-7002", "www.sforce.com", "", 0, ""},
		{"Bluewater Logistics", "Deep Sea Foreign Transportation of Freight", "Trade Show", "Warm", "Private", "Prospect", 870, 143500000, "United States", "WA", "Tacoma", "98402", "1701 Pacific Ave", "(253) 555-0119", "", "www.bluewaterlogistics.com", "", 0, "Cold-chain freight between Pacific Northwest ports and inland hubs."},
		{"Harbor Point Medical Group", "Offices and Clinics of Doctors of Medicine", "Web", "Hot", "Private", "Prospect", 1450, 212000000, "United States", "MA", "Boston", "02110", "100 Atlantic Avenue", "(617) 555-0134", "(617) 555-0135", "www.harborpointmed.org", "", 0, "Outpatient clinics across greater Boston; evaluating a patient portal."},
		{"Kestrel Aerospace", "Aircraft Parts and Auxiliary Equipment", "Partner Referral", "Hot", "Public", "Customer - Direct", 7800, 2300000000, "United States", "KS", "Wichita", "67209", "2600 S Hoover Rd", "(316) 555-0161", "", "www.kestrelaero.com", "KSTR", 0, "Machined airframe components for commercial and defence programmes."},
		{"Kestrel Aerospace Services", "Aircraft Parts and Auxiliary Equipment", "Partner Referral", "Warm", "Subsidiary", "Customer - Direct", 950, 180000000.75, "United States", "OK", "Tulsa", "74115", "7100 E Apache St", "(918) 555-0188", "", "services.kestrelaero.com", "", 15, "Maintenance, repair and overhaul arm of Kestrel Aerospace."},
		{"Lindqvist Möbler AB", "Wood Household Furniture", "Trade Show", "Warm", "Private", "Customer - Channel", 410, 64000000, "Sweden", "", "Jönköping", "553 18", "Västra Storgatan 12", "+46 36 555 01 20", "", "www.lindqvistmobler.se", "", 0, "Flat-pack furniture sold through Nordic retail partners."},
		{"Müller & Söhne Maschinenbau GmbH", "Metalworking Machinery", "External Referral", "Hot", "Private", "Customer - Direct", 2300, 410000000, "Germany", "BY", "Augsburg", "86150", "Provinostraße 52", "+49 821 555 0147", "+49 821 555 0148", "www.mueller-soehne.de", "", 0, "CNC machining centres; service contracts renew every January."},
		{"Rheinland Chemie AG", "Industrial Organic Chemicals", "Partner Referral", "Warm", "Public", "Customer - Direct", 11200, 3100000000, "Germany", "NW", "Köln", "50667", "Hohenzollernring 72", "+49 221 555 0190", "", "www.rheinland-chemie.de", "RCH", 0, ""},
		{"Café Lumière SARL", "Eating Places", "Web", "Cold", "Private", "Prospect", 38, 2100000, "France", "", "Lyon", "69002", "14 Rue de la République", "+33 4 78 55 01 23", "", "www.cafelumiere.fr", "", 0, "Coffee roaster with three cafés; interested in loyalty integration."},
		{"Sakura Precision Instruments K.K.", "Optical Instruments and Lenses", "Trade Show", "Hot", "Public", "Customer - Direct", 6400, 1850000000, "Japan", "Tokyo", "Chiyoda-ku", "100-0005", "1-6-1 Marunouchi", "+81 3 5555 0172", "+81 3 5555 0173", "www.sakura-precision.co.jp", "7745", 0, "Microscopy and metrology optics for semiconductor fabs."},
		{"Osaka Robotics Co., Ltd.", "Special Industry Machinery", "Partner Referral", "Warm", "Subsidiary", "Customer - Channel", 880, 220000000, "Japan", "Osaka", "Osaka", "530-0001", "3-1-3 Umeda, Kita-ku", "+81 6 5555 0139", "", "www.osaka-robotics.co.jp", "", 21, ""},
		{"Tata Grove Software Services", "Computer Programming Services", "Web", "Warm", "Private", "Partner", 15400, 780000000, "India", "KA", "Bengaluru", "560066", "Whitefield Main Road, EPIP Zone", "+91 80 5555 0155", "", "www.tatagrove.in", "", 0, "Implementation partner for CRM roll-outs in APAC."},
		{"Mumbai Freight Forwarders Pvt Ltd", "Arrangement of Transportation of Freight and Cargo", "Purchased List", "", "Private", "Prospect", 230, 0, "India", "MH", "Mumbai", "400001", "Ballard Estate, 21 Shoorji Vallabhdas Marg", "+91 22 5555 0117", "", "", "", 0, ""},
		{"Southern Cross Mining Ltd", "Gold and Silver Ores", "External Referral", "Cold", "Public", "Customer - Direct", 4700, 2650000000, "Australia", "WA", "Perth", "6000", "240 St Georges Terrace", "+61 8 5555 0148", "", "www.southerncrossmining.com.au", "SXM", 0, "Open-pit gold operations in the Goldfields region."},
		{"Harbourside Insurance Brokers", "Insurance Agents, Brokers and Service", "Phone Inquiry", "Warm", "Private", "Customer - Direct", 160, 45000000, "Australia", "NSW", "Sydney", "2000", "1 Macquarie Place", "+61 2 5555 0163", "+61 2 5555 0164", "www.harbourside-insurance.com.au", "", 0, ""},
		{"Maple Leaf Organics Inc.", "Agricultural Production - Crops", "Web", "Hot", "Private", "Prospect", 95, 12500000, "Canada", "ON", "Guelph", "N1H 3T9", "42 Wyndham St N", "(519) 555-0127", "", "www.mapleleaforganics.ca", "", 0, "Certified organic produce for grocery chains in Ontario and Quebec."},
		{"Northern Lights Energy Corp.", "Electric Services", "Partner Referral", "Warm", "Public", "Customer - Direct", 3900, 4100000000, "Canada", "AB", "Calgary", "T2P 2V7", "500 Centre St SE", "(403) 555-0150", "", "www.northernlightsenergy.ca", "NLE", 0, ""},
		{"Van der Berg Logistiek B.V.", "Public Warehousing and Storage", "Trade Show", "", "Private", "Customer - Channel", 720, 96000000, "Netherlands", "ZH", "Rotterdam", "3011 AD", "Blaak 16", "+31 10 555 0199", "", "www.vanderberg-logistiek.nl", "", 9, ""},
		{"Iberia Solar S.L.", "Electrical Work", "Web", "Hot", "Private", "Prospect", 140, 0, "Spain", "", "Sevilla", "41001", "Calle Sierpes 48", "+34 954 55 01 66", "", "www.iberiasolar.es", "", 0, "Installs rooftop photovoltaic systems for commercial buildings."},
		{"Fratelli Bianchi S.p.A.", "Canned, Frozen and Preserved Fruits and Vegetables", "External Referral", "Warm", "Private", "Customer - Direct", 530, 88000000, "Italy", "PR", "Parma", "43121", "Strada della Repubblica 5", "+39 0521 555 012", "+39 0521 555 013", "www.fratellibianchi.it", "", 0, ""},
		{"Grupo Azteca Alimentos S.A. de C.V.", "Food and Kindred Products", "Partner Referral", "Cold", "Public", "Customer - Channel", 18900, 2950000000, "Mexico", "NLE", "Monterrey", "64000", "Av. Constitución 444 Pte.", "+52 81 5555 0143", "", "www.aztecaalimentos.mx", "AZTA", 0, ""},
		{"São Paulo Digital Bank", "National Commercial Banks", "Web", "Hot", "Public", "Prospect", 2100, 8700000000, "Brazil", "SP", "São Paulo", "01310-100", "Avenida Paulista 1578", "+55 11 5555 0121", "", "www.spdigitalbank.com.br", "SPDB3", 0, "Digital-only retail bank; security review in progress."},
		{"Cape Vineyards (Pty) Ltd", "Wines, Brandy and Brandy Spirits", "Trade Show", "Warm", "Private", "Customer - Direct", 210, 27000000, "South Africa", "WC", "Stellenbosch", "7600", "R44 Helshoogte Road", "+27 21 555 0184", "", "www.capevineyards.co.za", "", 0, ""},
		{"Pinnacle Ridge Credit Union", "Credit Unions, Federally Chartered", "Purchased List", "", "Other", "Other", 310, 1400000000, "United States", "CO", "Denver", "80202", "1700 Lincoln St", "(303) 555-0170", "(303) 555-0171", "www.pinnacleridgecu.org", "", 0, ""},
		{"Redwood Analytics LLC", "Computer Processing and Data Preparation", "Web", "Hot", "Private", "Partner", 58, 0, "United States", "CA", "Oakland", "94612", "1333 Broadway, Suite 600", "(510) 555-0112", "", "www.redwoodanalytics.io", "", 0, "Reporting partner; resells dashboards to mid-market customers."},
	}
}

// seedOnce fills an empty accounts table with seedAccounts the first time
// this database is seen, and records that it did, in one transaction. The
// marker keeps a table the user emptied on purpose empty after a restart.
func (s *store) seedOnce(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS account_seed_marker (seeded INTEGER)"); err != nil {
		return err
	}
	var marked, existing int
	if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM account_seed_marker").Scan(&marked); err != nil {
		return err
	}
	if marked > 0 {
		return nil
	}
	if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM accounts").Scan(&existing); err != nil {
		return err
	}
	if existing == 0 {
		seeds := seedAccounts()
		ids := make([]string, len(seeds))
		for i := range seeds {
			ids[i] = sfdc.NewID(keyPrefix)
		}
		for i, a := range seeds {
			if err := s.insertWithID(ctx, tx, ids[i], s.seedValues(i, a, ids)); err != nil {
				return fmt.Errorf("account %q: %w", a.name, err)
			}
		}
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO account_seed_marker (seeded) VALUES (1)"); err != nil {
		return err
	}
	return tx.Commit()
}

// seedValues turns a seed into column values; the fields the seed table
// leaves out are derived from its position and id.
func (s *store) seedValues(i int, a seedAccount, ids []string) []fieldValue {
	str := func(v string) any {
		if v == "" {
			return nil
		}
		return v
	}
	parent := any(nil)
	if a.parent > 0 {
		parent = ids[a.parent-1]
	}
	employees, assets := any(nil), any(nil)
	if a.employees > 0 {
		employees = a.employees
	}
	if a.assets > 0 {
		assets = a.assets
	}
	site := any(nil) // a branch names its site; a headquarters leaves it blank
	if a.parent > 0 {
		site = a.city
	}
	external := any(nil)
	if i%5 != 4 {
		external = fmt.Sprintf("EXT-%05d", 1001+i)
	}
	byName := map[string]any{
		"Name": a.name, "External_Id__c": external, "SicDesc": str(a.sic), "AccountSource": str(a.source),
		"Site": site, "Rating": str(a.rating), "Description": str(a.description),
		"TickerSymbol": str(a.ticker), "Ownership": str(a.ownership), "NumberOfEmployees": employees,
		"BillingCountry": str(a.country), "BillingPostalCode": str(a.postal), "BillingState": str(a.state),
		"BillingCity": str(a.city), "BillingStreet": str(a.street), "ParentId": parent, "Type": str(a.kind),
		"Total_Assets__c": assets, "PhotoUrl": "/services/images/photo/" + ids[i], "Website": str(a.website),
		"AccountNumber": fmt.Sprintf("CD%06d", 355000+i*37), "Fax": str(a.fax), "Phone": str(a.phone),
	}
	vals := make([]fieldValue, 0, len(s.fields))
	for j, f := range s.fields {
		if v, ok := byName[f.Name]; ok {
			vals = append(vals, fieldValue{index: j, value: v})
		}
	}
	return vals
}
