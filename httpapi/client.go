package httpapi

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/ndrmilter/ndrmilter/ledger"
	"github.com/ndrmilter/ndrmilter/ledger/postfixlog"
)

// ErrUnauthorized is wrapped by the errors of a Client the service refused
// for want of credentials.
var ErrUnauthorized = errors.New("the service's API wants credentials")

// Client asks a running service's API for what the command line would read
// in its ledger. It is made from the service's address file.
type Client struct {
	base  string
	token string
	hc    *http.Client
}

// NewClient returns a Client of the service that wrote a. With TLS, the
// certificate must be the one the address file names (pinned): it is a
// service of this host, whatever names its certificate gives.
func NewClient(a AddrFile) *Client {
	tr := &http.Transport{Proxy: nil, ResponseHeaderTimeout: 5 * time.Minute}
	if a.CertSHA256 != "" {
		pin := a.CertSHA256
		tr.TLSClientConfig = &tls.Config{
			InsecureSkipVerify: true, // replaced by the pin below
			VerifyConnection: func(cs tls.ConnectionState) error {
				if len(cs.PeerCertificates) == 0 {
					return errors.New("the service sent no certificate")
				}
				sum := sha256.Sum256(cs.PeerCertificates[0].Raw)
				if hex.EncodeToString(sum[:]) != pin {
					return errors.New("the service's certificate is not the one its address file names")
				}
				return nil
			},
		}
	}
	return &Client{base: a.URL, token: a.Token, hc: &http.Client{Transport: tr}}
}

// do sends a request and decodes a 200 answer into v; ok is false for a 404.
func (c *Client) do(ctx context.Context, method, path string, body io.Reader, ct string, v any) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return false, err
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return false, fmt.Errorf("the service's API at %s does not answer: %w", c.base, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return false, fmt.Errorf("the service's API at %s: %w", c.base, err)
	}
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return false, nil
	case resp.StatusCode == http.StatusUnauthorized:
		return false, fmt.Errorf("%w (%s)", ErrUnauthorized, c.base)
	case resp.StatusCode != http.StatusOK:
		var e apiError
		msg := "answered " + resp.Status
		if json.Unmarshal(data, &e) == nil && e.Error != "" {
			msg = e.Error + " (" + resp.Status + ")"
		}
		if resp.StatusCode == http.StatusRequestEntityTooLarge || resp.StatusCode == http.StatusRequestTimeout {
			return false, fmt.Errorf("%w: the service's API at %s: %s", ErrImportLimit, c.base, msg)
		}
		return false, fmt.Errorf("the service's API at %s: %s", c.base, msg)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return false, fmt.Errorf("the service's API at %s: its answer is not what was expected: %v", c.base, err)
	}
	return true, nil
}

// Lookup is GET /api/v1/ledger/{id}: the record of a Message-ID or a queue
// id, or ledger.ErrNotFound.
func (c *Client) Lookup(ctx context.Context, id string) (ledger.Record, error) {
	var lr LedgerRecord
	ok, err := c.do(ctx, http.MethodGet, "/api/v1/ledger/"+url.PathEscape(id), nil, "", &lr)
	switch {
	case err != nil:
		return ledger.Record{}, err
	case !ok:
		return ledger.Record{}, ledger.ErrNotFound
	}
	return ledger.Record{MessageID: lr.MessageID, QueueID: lr.QueueID, Sender: lr.Sender, Recipients: lr.Recipients, Time: lr.Time}, nil
}

// Stats is GET /api/v1/ledger/stats.
func (c *Client) Stats(ctx context.Context) (ledger.Stats, error) {
	var st LedgerStats
	ok, err := c.do(ctx, http.MethodGet, "/api/v1/ledger/stats", nil, "", &st)
	if err == nil && !ok {
		err = fmt.Errorf("the service at %s has no ledger API (is it an older ndrmilter?)", c.base)
	}
	return ledger.Stats{Backend: st.Backend, Records: st.Records, Oldest: st.Oldest, Newest: st.Newest}, err
}

// ErrImportLimit is wrapped by the error of a Client.Import that the
// service stopped at its limit on the size of an import or its time (413,
// 408): what came before the limit was imported.
var ErrImportLimit = errors.New("the service stopped the import at its limit")

// Import is POST /api/v1/ledger/import: log is a Postfix log (plain or
// gzip), domains (if any) the domains whose mail is imported.
func (c *Client) Import(ctx context.Context, log io.Reader, domains []string, dryRun bool) (postfixlog.Summary, error) {
	q := url.Values{"domain": domains}
	if dryRun {
		q.Set("dry_run", "true")
	}
	br := bufio.NewReader(log)
	ct := "text/plain"
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		ct = "application/gzip"
	}
	var sum postfixlog.Summary
	ok, err := c.do(ctx, http.MethodPost, "/api/v1/ledger/import?"+q.Encode(), br, ct, &sum)
	if err == nil && !ok {
		err = fmt.Errorf("the service at %s has no ledger API (is it an older ndrmilter?)", c.base)
	}
	return sum, err
}
