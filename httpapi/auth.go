package httpapi

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"

	"golang.org/x/crypto/bcrypt"
)

// Users are who may use the API and the page when authentication is on:
// user names with bcrypt password hashes.
type Users struct {
	hashes map[string][]byte
}

// maxUsers bounds a password file.
const maxUsers = 10000

// LoadUsers reads a password file: one "user:hash" a line, the hash a bcrypt
// hash ($2a$, $2b$ or $2y$) as "htpasswd -B -n USER" writes it; empty lines
// and lines starting with # are skipped. Errors name the file and the line.
func LoadUsers(path string) (*Users, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the HTTP users file: %w", err)
	}
	u := &Users{hashes: map[string][]byte{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		user, hash, ok := strings.Cut(line, ":")
		if !ok || user == "" {
			return nil, fmt.Errorf("%s:%d: expected USER:HASH, as htpasswd -B -n USER writes it", path, n)
		}
		if _, err := bcrypt.Cost([]byte(hash)); err != nil {
			return nil, fmt.Errorf("%s:%d: the hash of %q is not a bcrypt hash ($2y$...): write it with htpasswd -B -n %s", path, n, user, user)
		}
		if _, dup := u.hashes[user]; dup {
			return nil, fmt.Errorf("%s:%d: user %q given twice", path, n, user)
		}
		if len(u.hashes) == maxUsers {
			return nil, fmt.Errorf("%s:%d: more than %d users", path, n, maxUsers)
		}
		u.hashes[user] = []byte(hash)
	}
	if len(u.hashes) == 0 {
		return nil, fmt.Errorf("%s: no user in the file: expected USER:HASH lines, as htpasswd -B -n USER writes them", path)
	}
	return u, sc.Err()
}

// dummyHash is compared against for an unknown user.
var dummyHash = sync.OnceValue(func() []byte {
	h, _ := bcrypt.GenerateFromPassword([]byte("not a password"), bcrypt.DefaultCost)
	return h
})

// maxAuthCache bounds the credentials kept as verified.
const maxAuthCache = 1024

// check reports whether user and password are right. bcrypt is slow by
// design (tens of ms), and a browser sends the password with every request:
// credentials once verified are remembered as a SHA-256 digest.
func (s *Server) checkPassword(user, password string) bool {
	u := s.cfg.Users
	hash, ok := u.hashes[user]
	if !ok {
		// The same work for an unknown user as for a wrong password.
		bcrypt.CompareHashAndPassword(dummyHash(), []byte(password))
		return false
	}
	digest := sha256.Sum256([]byte(user + "\x00" + password + "\x00" + string(hash)))
	if _, ok := s.authCache.Load(digest); ok {
		return true
	}
	if bcrypt.CompareHashAndPassword(hash, []byte(password)) != nil {
		return false
	}
	n := 0
	s.authCache.Range(func(any, any) bool { n++; return n < maxAuthCache })
	if n < maxAuthCache {
		s.authCache.Store(digest, struct{}{})
	}
	return true
}

// authenticate lets a request through when authentication is off, the
// route is public, or the request carries a right user and password (basic
// authentication, RFC 7617) or the service's own token (a bearer token,
// RFC 6750); else it answers 401.
func (s *Server) authenticate(next http.Handler) http.Handler {
	if s.cfg.Users == nil {
		return next
	}
	public := map[string]bool{}
	for _, r := range s.routes {
		if r.public {
			public[r.path] = true
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if public[r.URL.Path] {
			next.ServeHTTP(w, r)
			return
		}
		if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && s.cfg.Token != "" {
			if subtle.ConstantTimeCompare([]byte(tok), []byte(s.cfg.Token)) == 1 {
				next.ServeHTTP(w, r)
				return
			}
		} else if user, password, ok := r.BasicAuth(); ok && s.checkPassword(user, password) {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("WWW-Authenticate", `Basic realm="ndrmilter", charset="UTF-8"`)
		writeError(w, http.StatusUnauthorized, "authentication required: a user and password of the service's http_users file")
	})
}
