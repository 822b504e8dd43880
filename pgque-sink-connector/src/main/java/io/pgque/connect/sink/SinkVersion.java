package io.pgque.connect.sink;

import io.pgque.connect.common.version.BuildVersion;

/** The sink's version, as written by the build into version.properties. */
final class SinkVersion {

    private SinkVersion() {
    }

    static String get() {
        return Holder.VERSION;
    }

    // Read on first use rather than at class load, so a packaging mistake shows up as an error
    // from version() instead of breaking the worker's plugin scan.
    private static final class Holder {
        static final String VERSION = BuildVersion.read(SinkVersion.class, "version.properties");
    }
}
