package main

// The exit status of every subcommand. One table for all, so that a script
// can tell "no" from "broken" the same way whatever it ran; exitCodes below
// documents it in the usage text, the man page and the README.
const (
	// exitOK: done, and the answer (if a question was asked) is yes.
	exitOK = 0
	// exitNo: the answer is no, or part of the work could not be done.
	exitNo = 1
	// exitUsage: the command line is wrong.
	exitUsage = 2
	// exitLedger: the ledger cannot be opened or used.
	exitLedger = 3
	// exitConfig: the configuration or a rules file is rejected.
	exitConfig = 4
	// exitListen: serve cannot open a socket.
	exitListen = 5
)

// exitCode is one line of the documented exit status table.
type exitCode struct {
	code    int
	meaning string
}

// exitCodes is the exit status table, as documented.
var exitCodes = []exitCode{
	{exitOK, "done: every input explained, the code explained, the configuration valid, every ID found; serve stopped by SIGTERM or SIGINT"},
	{exitNo, "the answer is no, or part of the work failed: explain could not read an input or found no message in it; " +
		"ledger lookup did not find an ID; config check found an error; ledger import could not read a file or write a record; " +
		"serve stopped on an error after it had started"},
	{exitUsage, "usage: an unknown command or flag, a missing or extra argument, " +
		"or a code that is neither an enhanced status code, a reply code nor a reply line"},
	{exitLedger, "the ledger is unavailable: it cannot be opened (the bbolt file is locked by a running serve, " +
		"its directory cannot be written) or an operation on it failed"},
	{exitConfig, "the configuration is rejected: serve's file or flags at start-up, or a rules file given with --rules"},
	{exitListen, "serve cannot open its milter socket or its metrics listener (address in use, permission denied)"},
}
