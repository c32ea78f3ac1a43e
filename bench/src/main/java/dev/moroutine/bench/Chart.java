package dev.moroutine.bench;

import dev.moroutine.bench.ResultsTable.Kind;
import dev.moroutine.bench.ResultsTable.Role;
import dev.moroutine.bench.ResultsTable.Row;
import dev.moroutine.bench.ResultsTable.Shape;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.Paint;
import java.awt.RenderingHints;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.imageio.ImageIO;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.BoxAndWhiskerRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.statistics.DefaultBoxAndWhiskerCategoryDataset;

/**
 * Draws {@code chart.png} with JFreeChart, headless: on top, moroutine's ratio to the best peer for
 * every shape (a log scale centred on 1: right of it moroutine is ahead); below, one box plot per
 * shape of every system's iterations (the box is the middle half, the line in it the median, the
 * whiskers the range), moroutine in blue, the JDK's peers in grey, Piscina in green, an upper
 * bound that is not a peer (a spinning queue) in lilac, the seed's figure (measured on another
 * machine) in orange.
 */
public final class Chart {

    private static final int COLUMNS = 3;
    private static final int TILE_WIDTH = 600;
    private static final int TILE_HEIGHT = 300;
    private static final int SUMMARY_HEIGHT = 520;

    private static final Color MOROUTINE = new Color(0x1f5fbf);
    private static final Color PEER = new Color(0x8a8a8a);
    private static final Color PISCINA = new Color(0x3c9a3c);
    private static final Color SEED = new Color(0xe08a1e);
    private static final Color BOUND = new Color(0xb39ddb);
    private static final Color AHEAD = new Color(0x2e8b57);
    private static final Color BEHIND = new Color(0xc0392b);

    private Chart() {}

    /**
     * Draws the chart and writes it as a PNG.
     *
     * @param rows every row of the run
     * @param title the chart's title (the run's date and mode)
     * @param file where to write it
     * @throws IOException if it cannot be written
     */
    public static void write(List<Row> rows, String title, Path file) throws IOException {
        Map<Shape, List<Row>> byShape = ResultsTable.byShape(rows);
        List<JFreeChart> tiles = new ArrayList<>();
        for (Map.Entry<Shape, List<Row>> entry : byShape.entrySet()) {
            tile(entry.getKey(), entry.getValue()).ifPresent(tiles::add);
        }
        int tileRows = (tiles.size() + COLUMNS - 1) / COLUMNS;
        int width = COLUMNS * TILE_WIDTH;
        int height = SUMMARY_HEIGHT + tileRows * TILE_HEIGHT;
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, width, height);
            summary(byShape, title).draw(g, new Rectangle2D.Double(0, 0, width, SUMMARY_HEIGHT));
            for (int i = 0; i < tiles.size(); i++) {
                int x = (i % COLUMNS) * TILE_WIDTH;
                int y = SUMMARY_HEIGHT + (i / COLUMNS) * TILE_HEIGHT;
                tiles.get(i).draw(g, new Rectangle2D.Double(x, y, TILE_WIDTH, TILE_HEIGHT));
            }
        } finally {
            g.dispose();
        }
        ImageIO.write(image, "png", file.toFile());
    }

    /** moroutine ÷ best peer, one bar per shape, from 1 to the ratio on a log scale. */
    private static JFreeChart summary(Map<Shape, List<Row>> byShape, String title) {
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        List<Boolean> ahead = new ArrayList<>();
        double lowest = 1;
        double highest = 1;
        for (Map.Entry<Shape, List<Row>> entry : byShape.entrySet()) {
            Optional<Row> moroutine = ResultsTable.moroutine(entry.getValue()).filter(Row::ran);
            Optional<Row> best = ResultsTable.bestPeer(entry.getValue());
            if (moroutine.isPresent() && best.isPresent()) {
                double ratio = ResultsTable.ratio(moroutine.get(), best.get());
                data.addValue(ratio, "moroutine ÷ best peer", entry.getKey().key() + " (vs " + shortName(best.get()) + ")");
                ahead.add(ratio >= 1);
                lowest = Math.min(lowest, ratio);
                highest = Math.max(highest, ratio);
            }
        }
        BarRenderer renderer = new BarRenderer() {
            private static final long serialVersionUID = 1L;

            @Override
            public Paint getItemPaint(int row, int column) {
                return ahead.get(column) ? AHEAD : BEHIND;
            }
        };
        renderer.setBarPainter(new StandardBarPainter());
        renderer.setShadowVisible(false);
        renderer.setBase(1);
        renderer.setMaximumBarWidth(0.1);
        renderer.setIncludeBaseInRange(true);
        LogAxis axis = decades("moroutine ÷ best peer (log scale; right of 1: moroutine ahead)",
                Math.min(lowest / 1.5, 0.5), Math.max(highest * 1.5, 2));
        CategoryAxis shapes = new CategoryAxis();
        shapes.setTickLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        CategoryPlot plot = new CategoryPlot(data, shapes, axis, renderer);
        plot.setOrientation(PlotOrientation.HORIZONTAL);
        plot.addRangeMarker(new ValueMarker(1, Color.BLACK, new BasicStroke(1.5f)));
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        JFreeChart chart = new JFreeChart(title, new Font(Font.SANS_SERIF, Font.BOLD, 16), plot, false);
        chart.setBackgroundPaint(Color.WHITE);
        return chart;
    }

    /** One shape: a box plot per system of its iterations (speed-ups, for time shapes). */
    private static Optional<JFreeChart> tile(Shape shape, List<Row> table) {
        DefaultBoxAndWhiskerCategoryDataset data = new DefaultBoxAndWhiskerCategoryDataset();
        List<Color> colors = new ArrayList<>();
        double lowest = Double.POSITIVE_INFINITY;
        double highest = 0;
        for (Row r : table) {
            if (!r.ran() || r.perIteration().isEmpty()) {
                continue;
            }
            List<Double> values = shape.kind() == Kind.TIME
                    ? r.perIteration().stream().map(v -> r.speedUp() * r.median() / v).toList()
                    : r.perIteration();
            data.add(values, "values", shortName(r));
            colors.add(color(r));
            for (double v : values) {
                lowest = Math.min(lowest, v);
                highest = Math.max(highest, v);
            }
        }
        if (colors.isEmpty()) {
            return Optional.empty();
        }
        BoxAndWhiskerRenderer renderer = new BoxAndWhiskerRenderer() {
            private static final long serialVersionUID = 1L;

            @Override
            public Paint getItemPaint(int row, int column) {
                return colors.get(column);
            }
        };
        renderer.setMeanVisible(false);
        renderer.setMedianVisible(true);
        renderer.setFillBox(true);
        renderer.setMaximumBarWidth(0.5);
        renderer.setUseOutlinePaintForWhiskers(false);
        String unit = shape.kind() == Kind.TIME ? "speed-up over sequential (higher is better)"
                : shape.unit() + (shape.kind().higherIsBetter() ? " (higher is better)" : " (lower is better)");
        ValueAxis axis;
        if (lowest > 0 && highest / lowest > 20) {
            axis = decades(unit + ", log scale", lowest / 1.5, highest * 1.5);
        } else {
            NumberAxis linear = new NumberAxis(unit);
            linear.setAutoRangeIncludesZero(true);
            axis = linear;
        }
        axis.setLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        CategoryAxis systems = new CategoryAxis();
        systems.setTickLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
        systems.setMaximumCategoryLabelLines(2);
        CategoryPlot plot = new CategoryPlot(data, systems, axis, renderer);
        plot.setOrientation(PlotOrientation.HORIZONTAL);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        JFreeChart chart = new JFreeChart(shape.title(), new Font(Font.SANS_SERIF, Font.BOLD, 12), plot, false);
        chart.setBackgroundPaint(Color.WHITE);
        return Optional.of(chart);
    }

    /** A log axis with a labelled tick at each power of ten and unlabelled ones between. */
    private static LogAxis decades(String label, double lower, double upper) {
        LogAxis axis = new LogAxis(label);
        axis.setSmallestValue(lower / 10);
        axis.setRange(lower, upper);
        axis.setTickUnit(new NumberTickUnit(1));
        axis.setMinorTickCount(9);
        axis.setMinorTickMarksVisible(true);
        axis.setNumberFormatOverride(new java.text.DecimalFormat("0.####"));
        return axis;
    }

    private static Color color(Row r) {
        if (r.role() == Role.REFERENCE) {
            return SEED;
        }
        if (r.role() == Role.BOUND) {
            return BOUND;
        }
        if (r.role() == Role.MOROUTINE) {
            return MOROUTINE;
        }
        return r.system().startsWith(PiscinaResults.PISCINA) ? PISCINA : PEER;
    }

    /** A system's name, short enough for an axis. */
    static String shortName(Row r) {
        String name = r.system();
        if (r.role() == Role.REFERENCE) {
            return "seed (other machine)";
        }
        name = name.replace("concurrentTasksPerWorker", "cTPW").replace(", spinning", "")
                .replace("SubmissionPublisher (buffer 256)", "SubmissionPublisher").replace("JCTools ", "");
        return name;
    }
}
