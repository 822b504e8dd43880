/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.template;

import java.util.Objects;

/**
 * One parsed {@code ${...}} occurrence: its kind and, for {@code ${header:NAME}}, the header name.
 */
public final class Placeholder {

    private final PlaceholderKind kind;
    private final String headerName;

    Placeholder(PlaceholderKind kind, String headerName) {
        this.kind = kind;
        this.headerName = headerName;
    }

    public PlaceholderKind kind() {
        return kind;
    }

    /** The header name for {@link PlaceholderKind#HEADER}, else null. */
    public String headerName() {
        return headerName;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Placeholder
                && ((Placeholder) other).kind == kind
                && Objects.equals(((Placeholder) other).headerName, headerName);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, headerName);
    }

    /** As written in the template, e.g. "${header:trace-id}". */
    @Override
    public String toString() {
        return kind == PlaceholderKind.HEADER ? "${header:" + headerName + "}" : kind.syntax();
    }
}
