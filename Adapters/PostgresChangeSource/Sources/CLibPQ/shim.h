// libpq, PostgreSQL's client library (Debian: libpq-dev; Homebrew: libpq),
// for the replication protocol's streaming of logical decoding.
#include <libpq-fe.h>
