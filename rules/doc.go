// Package rules holds ndrmilter's knowledge of bounces: what enhanced status
// codes and reply texts mean, the reason they map to, who must fix the problem,
// and the plain-English explanation and fix. The knowledge is data: an embedded
// rules file (rules.yaml), validated at load, that a user can extend or
// override with files of their own, first match wins, local rules first.
package rules
