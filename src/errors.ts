// The base of every error its user can act on (a bad flag, an unreadable input, a locked or missing
// database, a report path that clashes): the CLIs print such an error as one line, without the
// "unexpected failure" of a bug. Each area keeps its own subclass for its own catches.
export class UserError extends Error {}
