// Package message reads Internet messages leniently: header fields, the
// MIME tree, transfer and charset decoding, encoded words and HTML as text,
// within fixed caps.
package message
