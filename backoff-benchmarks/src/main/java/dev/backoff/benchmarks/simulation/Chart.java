package dev.backoff.benchmarks.simulation;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A hand-written SVG chart: a title, side-by-side panels of polylines, and a legend. Small on
 * purpose, so that the simulations need no plotting library and their charts diff as text.
 */
public final class Chart {

	private final StringBuilder out = new StringBuilder();

	/**
	 * Starts a chart on a white background.
	 * @param width the width in pixels
	 * @param height the height in pixels
	 * @param title the line of text at the top
	 */
	public Chart(int width, int height, String title) {
		this.out.append(String.format(Locale.ROOT,
				"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n",
				width, height, width, height));
		this.out.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
		this.out.append(String.format(Locale.ROOT,
				"<text x=\"%d\" y=\"20\" text-anchor=\"middle\" font-size=\"14\">%s</text>%n", width / 2, title));
	}

	/**
	 * One axis of a panel.
	 * @param min the value at the start of the axis (a power of 10 for a log axis)
	 * @param max the value at the end of the axis
	 * @param divisions the gaps between ticks of a linear axis; a log axis ticks every power of 10
	 * @param log whether the axis is logarithmic (values below its start are drawn at it)
	 * @param tickFormat the {@link String#format} pattern of a tick's label
	 * @param label the axis's name, written under a horizontal axis (the panel's title names the
	 * vertical one), or empty for none
	 */
	public record Axis(double min, double max, int divisions, boolean log, String tickFormat, String label) {

		/**
		 * @param max the value at the end of the axis
		 * @param divisions the gaps between ticks
		 * @param tickFormat the pattern of a tick's label
		 * @param label the axis's name, or empty for none
		 * @return a linear axis from 0
		 */
		public static Axis linear(double max, int divisions, String tickFormat, String label) {
			return linear(0, max, divisions, tickFormat, label);
		}

		/**
		 * @param min the value at the start of the axis
		 * @param max the value at the end of the axis
		 * @param divisions the gaps between ticks
		 * @param tickFormat the pattern of a tick's label
		 * @param label the axis's name, or empty for none
		 * @return a linear axis
		 */
		public static Axis linear(double min, double max, int divisions, String tickFormat, String label) {
			return new Axis(min, max, divisions, false, tickFormat, label);
		}

		/**
		 * @param max the value at the end of the axis, rounded up to a power of 10
		 * @param tickFormat the pattern of a tick's label
		 * @param label the axis's name, or empty for none
		 * @return a log axis from 10
		 */
		public static Axis log(double max, String tickFormat, String label) {
			return log(10, max, tickFormat, label);
		}

		/**
		 * @param min the value at the start of the axis, a power of 10
		 * @param max the value at the end of the axis, rounded up to a power of 10
		 * @param tickFormat the pattern of a tick's label
		 * @param label the axis's name, or empty for none
		 * @return a log axis from {@code min}
		 */
		public static Axis log(double min, double max, String tickFormat, String label) {
			return new Axis(min, max, 0, true, tickFormat, label);
		}

		private double logMin() {
			return Math.log10(this.min);
		}

		private double logMax() {
			return Math.ceil(Math.log10(this.max));
		}

		/** The share of the axis's length at which {@code value} lies. */
		double fraction(double value) {
			return this.log ? (Math.log10(Math.max(value, this.min)) - logMin()) / (logMax() - logMin())
					: (value - this.min) / (this.max - this.min);
		}

		/** Whether {@code value} lies on the axis. */
		boolean contains(double value) {
			return value >= this.min && value <= this.max;
		}

		List<Double> ticks() {
			List<Double> ticks = new ArrayList<>();
			if (this.log) {
				for (double exponent = logMin(); exponent <= logMax(); exponent++) {
					ticks.add(Math.pow(10, exponent));
				}
			}
			else {
				for (int i = 0; i <= this.divisions; i++) {
					ticks.add(this.min + (this.max - this.min) * i / this.divisions);
				}
			}
			return ticks;
		}

	}

	/**
	 * Draws a panel's frame, title, grid and ticks.
	 * @param left the frame's left edge in pixels
	 * @param top the frame's top edge in pixels
	 * @param width the frame's width in pixels
	 * @param height the frame's height in pixels
	 * @param title the line of text above the frame
	 * @param x the horizontal axis
	 * @param y the vertical axis
	 * @return the panel, to draw into
	 */
	public Panel panel(int left, int top, int width, int height, String title, Axis x, Axis y) {
		Panel panel = new Panel(left, top, width, height, x, y);
		int bottom = top + height;
		this.out.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
				left + width / 2, top - 12, title));
		this.out.append(String.format(Locale.ROOT,
				"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333\"/>%n", left, top,
				width, height));
		for (double tick : y.ticks()) {
			double ty = panel.y(tick);
			this.out.append(String.format(Locale.ROOT,
					"<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n",
					left, ty, left + width, ty, left - 4, ty + 4, String.format(Locale.ROOT, y.tickFormat(), tick)));
		}
		for (double tick : x.ticks()) {
			double tx = panel.x(tick);
			this.out.append(String.format(Locale.ROOT,
					"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333\"/><text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
					tx, bottom, tx, bottom + 4, tx, bottom + 17, String.format(Locale.ROOT, x.tickFormat(), tick)));
		}
		if (!x.label().isEmpty()) {
			this.out.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
					left + width / 2, bottom + 34, x.label()));
		}
		return panel;
	}

	/**
	 * Adds one entry to the legend: a short line in the series' color and its name.
	 * @param x the line's left end in pixels
	 * @param y the line's height in pixels
	 * @param color the series' color
	 * @param name the series' name
	 */
	public void legend(int x, int y, String color, String name) {
		this.out.append(String.format(Locale.ROOT,
				"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2.5\"/><text x=\"%d\" y=\"%d\">%s</text>%n",
				x, y, x + 24, y, color, x + 30, y + 4, name));
	}

	/** @return the finished SVG document */
	public String end() {
		this.out.append("</svg>\n");
		return this.out.toString();
	}

	/**
	 * @param value a positive number
	 * @return the smallest of 1, 2, 2.5, 5 and 10 times a power of 10 that is at least {@code value}
	 */
	public static double niceCeil(double value) {
		double magnitude = Math.pow(10, Math.floor(Math.log10(value)));
		for (double step : new double[] { 1, 2, 2.5, 5, 10 }) {
			if (step * magnitude >= value) {
				return step * magnitude;
			}
		}
		return 10 * magnitude;
	}

	/** A panel of the chart, mapping values to pixels. */
	public final class Panel {

		private final int left;

		private final int top;

		private final int width;

		private final int height;

		private final Axis xAxis;

		private final Axis yAxis;

		private Panel(int left, int top, int width, int height, Axis xAxis, Axis yAxis) {
			this.left = left;
			this.top = top;
			this.width = width;
			this.height = height;
			this.xAxis = xAxis;
			this.yAxis = yAxis;
		}

		double x(double value) {
			return this.left + this.xAxis.fraction(value) * this.width;
		}

		double y(double value) {
			return (this.top + this.height) - this.yAxis.fraction(value) * this.height;
		}

		/**
		 * Draws a series as a polyline; NaN values and those off the horizontal axis are left out.
		 * @param xs the horizontal values
		 * @param ys the vertical values, as many
		 * @param color the stroke color
		 */
		public void line(double[] xs, double[] ys, String color) {
			StringBuilder path = new StringBuilder();
			for (int i = 0; i < xs.length; i++) {
				if (this.xAxis.contains(xs[i]) && !Double.isNaN(ys[i])) {
					path.append(String.format(Locale.ROOT, "%s%.1f,%.1f", (path.length() == 0) ? "" : " ", x(xs[i]),
							y(ys[i])));
				}
			}
			Chart.this.out.append(String.format(Locale.ROOT,
					"<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2.5\"/>%n", path, color));
		}

		/**
		 * Draws a thin dashed vertical line across the panel, labelled at its top.
		 * @param value where on the horizontal axis
		 * @param label the text beside its top
		 * @param labelOnLeft whether the label stands on the line's left rather than its right
		 */
		public void vertical(double value, String label, boolean labelOnLeft) {
			double vx = x(value);
			Chart.this.out.append(String.format(Locale.ROOT,
					"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#555\" stroke-dasharray=\"3 3\"/><text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\" fill=\"#555\">%s</text>%n",
					vx, this.top, vx, this.top + this.height, labelOnLeft ? vx - 4 : vx + 4, this.top + 14,
					labelOnLeft ? "end" : "start", label));
		}

		/**
		 * Draws a thin dashed horizontal line across the panel, labelled at its right end.
		 * @param value where on the vertical axis
		 * @param label the text above its right end
		 */
		public void horizontal(double value, String label) {
			double hy = y(value);
			Chart.this.out.append(String.format(Locale.ROOT,
					"<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#555\" stroke-dasharray=\"3 3\"/><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#555\">%s</text>%n",
					this.left, hy, this.left + this.width, hy, this.left + this.width - 4, hy - 4, label));
		}

	}

}
