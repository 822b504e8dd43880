/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.report;

import java.util.ArrayList;
import java.util.List;

/** A plain-text table with a header row; numbers right-aligned, text left-aligned. */
final class TextTable {

    private final List<String[]> rows = new ArrayList<>();
    private final boolean[] rightAligned;

    TextTable(String... header) {
        rows.add(header);
        rightAligned = new boolean[header.length];
    }

    TextTable alignRight(int... columns) {
        for (int c : columns) {
            rightAligned[c] = true;
        }
        return this;
    }

    TextTable row(Object... cells) {
        String[] row = new String[cells.length];
        for (int i = 0; i < cells.length; i++) {
            row[i] = String.valueOf(cells[i]);
        }
        rows.add(row);
        return this;
    }

    /** The table, each line starting with {@code indent}. */
    String render(String indent) {
        int[] widths = new int[rightAligned.length];
        for (String[] row : rows) {
            for (int c = 0; c < row.length; c++) {
                widths[c] = Math.max(widths[c], row[c].length());
            }
        }
        StringBuilder out = new StringBuilder();
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder(indent);
            for (int c = 0; c < row.length; c++) {
                String cell = row[c];
                String pad = " ".repeat(widths[c] - cell.length());
                line.append(rightAligned[c] ? pad + cell : cell + pad);
                if (c < row.length - 1) {
                    line.append("  ");
                }
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
        return out.toString();
    }
}
