// libpq, PostgreSQL's client library, which a catalog at a postgresql://
// address needs (CLibPQ's shim.h): loaded by the first call, so that
// commands on an SQLite catalog start without it and the libraries it
// needs. One line per function the PostgreSQL store calls.
//
// libpq's soname has been libpq.so.5 since PostgreSQL 8.2; every server
// version it speaks to is reached through it.

#include "Loader.h"

#include <postgresql/libpq-fe.h>

static struct CLibraryLoader_Library pq = {
    .soname = "libpq.so.5",
    .purpose = "a catalog on PostgreSQL (Debian: apt install libpq5)",
};

CLIBRARYLOADER_FORWARD(pq, PGconn *, PQconnectdb, (const char *conninfo), (conninfo))
CLIBRARYLOADER_FORWARD(pq, ConnStatusType, PQstatus, (const PGconn *conn), (conn))
CLIBRARYLOADER_FORWARD(pq, char *, PQerrorMessage, (const PGconn *conn), (conn))
CLIBRARYLOADER_FORWARD_VOID(pq, PQfinish, (PGconn *conn), (conn))
CLIBRARYLOADER_FORWARD(pq, int, PQconnectionNeedsPassword, (const PGconn *conn), (conn))
CLIBRARYLOADER_FORWARD(pq, int, PQconnectionUsedPassword, (const PGconn *conn), (conn))
CLIBRARYLOADER_FORWARD(pq, char *, PQdb, (const PGconn *conn), (conn))
CLIBRARYLOADER_FORWARD(pq, char *, PQuser, (const PGconn *conn), (conn))
CLIBRARYLOADER_FORWARD(pq, char *, PQhost, (const PGconn *conn), (conn))
CLIBRARYLOADER_FORWARD(pq, char *, PQport, (const PGconn *conn), (conn))
CLIBRARYLOADER_FORWARD(pq, int, PQserverVersion, (const PGconn *conn), (conn))
CLIBRARYLOADER_FORWARD(pq, PQconninfoOption *, PQconninfoParse, (const char *conninfo, char **errmsg),
    (conninfo, errmsg))
CLIBRARYLOADER_FORWARD(pq, PQconninfoOption *, PQconninfo, (PGconn *conn), (conn))
CLIBRARYLOADER_FORWARD_VOID(pq, PQconninfoFree, (PQconninfoOption *connOptions), (connOptions))
CLIBRARYLOADER_FORWARD_VOID(pq, PQfreemem, (void *ptr), (ptr))
CLIBRARYLOADER_FORWARD(pq, PGresult *, PQexec, (PGconn *conn, const char *query), (conn, query))
CLIBRARYLOADER_FORWARD(pq, PGresult *, PQexecParams,
    (PGconn *conn, const char *command, int nParams, const Oid *paramTypes, const char *const *paramValues,
        const int *paramLengths, const int *paramFormats, int resultFormat),
    (conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat))
CLIBRARYLOADER_FORWARD(pq, int, PQsendQueryParams,
    (PGconn *conn, const char *command, int nParams, const Oid *paramTypes, const char *const *paramValues,
        const int *paramLengths, const int *paramFormats, int resultFormat),
    (conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat))
CLIBRARYLOADER_FORWARD(pq, int, PQsetSingleRowMode, (PGconn *conn), (conn))
CLIBRARYLOADER_FORWARD(pq, int, PQsocket, (const PGconn *conn), (conn))
CLIBRARYLOADER_FORWARD(pq, int, PQconsumeInput, (PGconn *conn), (conn))
CLIBRARYLOADER_FORWARD(pq, PGnotify *, PQnotifies, (PGconn *conn), (conn))
CLIBRARYLOADER_FORWARD(pq, PGresult *, PQgetResult, (PGconn *conn), (conn))
CLIBRARYLOADER_FORWARD(pq, ExecStatusType, PQresultStatus, (const PGresult *res), (res))
CLIBRARYLOADER_FORWARD(pq, char *, PQresultErrorMessage, (const PGresult *res), (res))
CLIBRARYLOADER_FORWARD(pq, char *, PQresultErrorField, (const PGresult *res, int fieldcode), (res, fieldcode))
CLIBRARYLOADER_FORWARD_VOID(pq, PQclear, (PGresult *res), (res))
CLIBRARYLOADER_FORWARD(pq, int, PQntuples, (const PGresult *res), (res))
CLIBRARYLOADER_FORWARD(pq, int, PQnfields, (const PGresult *res), (res))
CLIBRARYLOADER_FORWARD(pq, char *, PQfname, (const PGresult *res, int field_num), (res, field_num))
CLIBRARYLOADER_FORWARD(pq, Oid, PQftype, (const PGresult *res, int field_num), (res, field_num))
CLIBRARYLOADER_FORWARD(pq, int, PQgetisnull, (const PGresult *res, int tup_num, int field_num),
    (res, tup_num, field_num))
CLIBRARYLOADER_FORWARD(pq, char *, PQgetvalue, (const PGresult *res, int tup_num, int field_num),
    (res, tup_num, field_num))
CLIBRARYLOADER_FORWARD(pq, int, PQgetlength, (const PGresult *res, int tup_num, int field_num),
    (res, tup_num, field_num))
CLIBRARYLOADER_FORWARD(pq, char *, PQcmdTuples, (PGresult *res), (res))
CLIBRARYLOADER_FORWARD(pq, PGcancel *, PQgetCancel, (PGconn *conn), (conn))
CLIBRARYLOADER_FORWARD_VOID(pq, PQfreeCancel, (PGcancel *cancel), (cancel))
CLIBRARYLOADER_FORWARD(pq, int, PQcancel, (PGcancel *cancel, char *errbuf, int errbufsize), (cancel, errbuf, errbufsize))
CLIBRARYLOADER_FORWARD(pq, int, PQlibVersion, (void), ())
CLIBRARYLOADER_FORWARD(pq, PQnoticeProcessor, PQsetNoticeProcessor, (PGconn *conn, PQnoticeProcessor proc, void *arg),
    (conn, proc, arg))
CLIBRARYLOADER_FORWARD(pq, int, PQputCopyData, (PGconn *conn, const char *buffer, int nbytes), (conn, buffer, nbytes))
CLIBRARYLOADER_FORWARD(pq, int, PQputCopyEnd, (PGconn *conn, const char *errormsg), (conn, errormsg))
CLIBRARYLOADER_FORWARD(pq, int, PQenterPipelineMode, (PGconn *conn), (conn))
CLIBRARYLOADER_FORWARD(pq, int, PQexitPipelineMode, (PGconn *conn), (conn))
CLIBRARYLOADER_FORWARD(pq, int, PQpipelineSync, (PGconn *conn), (conn))
CLIBRARYLOADER_FORWARD(pq, int, PQflush, (PGconn *conn), (conn))
