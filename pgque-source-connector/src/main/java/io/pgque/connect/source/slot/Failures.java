package io.pgque.connect.source.slot;

import io.pgque.client.PgQueException;

import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;

/** Tells failures worth retrying (the database is away or busy) from ones that need a person. */
public final class Failures {

    private Failures() {
    }

    /**
     * True for a lost or refused connection, a server restart, a pool that gave no connection in
     * time, a deadlock or serialization failure: the same call may work a moment later.
     */
    public static boolean isTransient(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof PgQueException && ((PgQueException) t).isTransient()) {
                return true;
            }
            if (t instanceof SQLTransientException || t instanceof SQLRecoverableException) {
                return true;
            }
            if (t instanceof java.sql.SQLException
                    && PgQueException.isTransientState(((java.sql.SQLException) t).getSQLState())) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }
}
