package io.pgque.connect.common.version;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * Reads the version a module's build wrote into a properties resource, so that a connector's
 * {@code version()} reports the artifact it ships in rather than a number typed into the code.
 */
public final class BuildVersion {

    private BuildVersion() {
    }

    /**
     * The {@code version} property of {@code resource}, loaded next to {@code anchor}.
     *
     * @throws IllegalStateException when the resource or the property is missing, or the build
     *         did not filter it; a wrong version would mislead whoever reads it
     */
    public static String read(Class<?> anchor, String resource) {
        try (InputStream in = anchor.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Build version resource " + resource + " not found next to "
                        + anchor.getName());
            }
            Properties properties = new Properties();
            properties.load(in);
            String version = properties.getProperty("version", "").trim();
            if (version.isEmpty() || version.startsWith("${")) {
                throw new IllegalStateException("Build version resource " + resource + " has no filtered version");
            }
            return version;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read build version resource " + resource, e);
        }
    }
}
