/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import javax.imageio.ImageIO;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Draws docs/benchmarks.png from the tables in docs/benchmarks.md: one bar per measured row, its
 * length the row's ratio to the raw baseline of the same run. The chart is derived from the
 * published figures, never drawn by hand, so the two cannot disagree.
 */
final class BenchmarkChart {

    private record Bar(String section, String label, double ratio) {
    }

    private BenchmarkChart() {
    }

    static void render(Path markdown, Path png) throws IOException {
        List<Bar> bars = parse(Files.readAllLines(markdown, StandardCharsets.UTF_8));
        if (bars.isEmpty()) {
            throw new IllegalStateException("no table with a ratio column in " + markdown);
        }
        ImageIO.write(draw(bars), "png", png.toFile());
        System.out.println("wrote " + png + " (" + bars.size() + " bars)");
    }

    /** Rows of every table whose header has a column starting with "ratio", where it holds a number. */
    static List<Bar> parse(List<String> lines) {
        List<Bar> bars = new ArrayList<>();
        String section = "";
        int ratioColumn = -1;
        for (String line : lines) {
            String trimmed = line.trim();
            if (trimmed.startsWith("## ")) {
                section = trimmed.substring(3);
                ratioColumn = -1;
                continue;
            }
            if (!trimmed.startsWith("|")) {
                ratioColumn = -1;
                continue;
            }
            List<String> cells = cells(trimmed);
            if (ratioColumn < 0) {
                for (int i = 0; i < cells.size(); i++) {
                    // Throughput ratios only: a latency ratio reads the other way round.
                    if (cells.get(i).toLowerCase(Locale.ROOT).startsWith("ratio")) {
                        ratioColumn = i;
                    }
                }
                continue;
            }
            if (ratioColumn < cells.size()) {
                try {
                    double ratio = Double.parseDouble(cells.get(ratioColumn));
                    bars.add(new Bar(section, cells.get(0).replace("`", ""), ratio));
                } catch (NumberFormatException notAMeasuredRow) {
                    // separator line or the baseline itself ("-")
                }
            }
        }
        return bars;
    }

    private static List<String> cells(String row) {
        List<String> out = new ArrayList<>();
        for (String cell : row.substring(1, row.length() - (row.endsWith("|") ? 1 : 0)).split("\\|")) {
            out.add(cell.trim());
        }
        return out;
    }

    private static BufferedImage draw(List<Bar> bars) {
        int rowHeight = 26;
        int labelWidth = 560;
        int barWidth = 420;
        int top = 60;
        long sections = bars.stream().map(Bar::section).distinct().count();
        int height = top + bars.size() * rowHeight + (int) sections * 30 + 40;
        int width = labelWidth + barWidth + 90;
        double max = Math.max(1.2, bars.stream().mapToDouble(Bar::ratio).max().orElse(1));

        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, width, height);
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
        g.drawString("Ratio to the raw baseline measured in the same run (1.0 = as fast as the baseline)", 10, 28);

        int y = top;
        String section = null;
        for (Bar bar : bars) {
            if (!bar.section().equals(section)) {
                section = bar.section();
                y += 10;
                g.setColor(Color.DARK_GRAY);
                g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
                g.drawString(section, 10, y + 10);
                y += 20;
            }
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
            g.setColor(Color.BLACK);
            String label = bar.label().length() > 80 ? bar.label().substring(0, 77) + "..." : bar.label();
            g.drawString(label, 20, y + 16);
            int length = (int) Math.round(bar.ratio() / max * barWidth);
            g.setColor(bar.ratio() >= 0.7 ? new Color(0x3b7dd8) : new Color(0xd8843b));
            g.fillRect(labelWidth, y + 4, length, rowHeight - 8);
            g.setColor(Color.BLACK);
            g.drawString(String.format(Locale.ROOT, "%.2f", bar.ratio()), labelWidth + length + 6, y + 16);
            y += rowHeight;
        }
        int oneX = labelWidth + (int) Math.round(1.0 / max * barWidth);
        g.setColor(Color.GRAY);
        g.setStroke(new BasicStroke(1f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {4f, 4f}, 0f));
        g.drawLine(oneX, top, oneX, y);
        g.dispose();
        return image;
    }
}
