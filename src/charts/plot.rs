//! The part every chart shares, drawn by plotters' SVG backend: the `<svg>` element, the plot area, the grid,
//! the axes with their tick labels and titles, and the empty state. A chart then adds its marks in plot
//! coordinates through [`Plot::at`], as SVG elements with a CSS class and a `<title>` (plotters' backend can
//! give an element neither, and both are what a theme and a screen reader need).
//!
//! Text is laid out by anchors only: no captions, no labels right of the plot, no multi-line text. Those make
//! plotters measure text, which in the browser build it does through the page's DOM, and the server's and the
//! browser's drawings of one chart would differ.

use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// The colours of plotters' own marks (grid, axes, labels); the page's palette.
const GRID: RGBColor = RGBColor(0xe8, 0xeb, 0xef);
const AXIS: RGBColor = RGBColor(0xdf, 0xe3, 0xe8);
const MUTED: RGBColor = RGBColor(0x5b, 0x64, 0x70);
const INK: RGBColor = RGBColor(0x1b, 0x1f, 0x24);

/// Plotters writes `font-size` as the given size / 1.24.
const PLOTTERS_FONT_SCALE: f64 = 1.24;

/// Room for tick labels left of and under the plot, and above and right of it, in SVG units.
const LEFT: u32 = 56;
const BOTTOM: u32 = 40;
const TOP: u32 = 14;
const RIGHT: u32 = 12;

/// A chart's canvas: 720 units wide, `height` high.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Canvas {
    /// Height in SVG units.
    pub height: u32,
    /// CSS classes besides `chart`.
    pub class: &'static str,
}

/// The canvas width every chart shares.
pub(crate) const WIDTH: u32 = 720;

/// What the axes show: data ranges, about how many labels, how a label reads, and the axis titles.
pub(crate) struct Axes<'a> {
    /// The x range (widened when empty).
    pub x: (f64, f64),
    /// The y range (widened when empty).
    pub y: (f64, f64),
    /// About how many x labels; 0 for none.
    pub x_labels: usize,
    /// About how many y labels.
    pub y_labels: usize,
    /// An x label's text.
    pub x_label: &'a dyn Fn(f64) -> String,
    /// A y label's text.
    pub y_label: &'a dyn Fn(f64) -> String,
    /// Under the x axis ("" for none).
    pub x_title: &'a str,
    /// Along the y axis ("" for none).
    pub y_title: &'a str,
}

/// The plot area of a drawn chart: where data go.
pub(crate) struct Plot {
    spec: Cartesian2d<RangedCoordf64, RangedCoordf64>,
}

impl Plot {
    /// The pixel of the data point `(x, y)`.
    pub fn at(&self, x: f64, y: f64) -> (i32, i32) {
        self.spec.translate(&(x, y))
    }

    /// The plot area's left, top, right and bottom edges.
    pub fn edges(&self) -> (i32, i32, i32, i32) {
        let (x, y) = (self.spec.get_x_range(), self.spec.get_y_range());
        let (left, top) = self.at(x.start, y.end);
        let (right, bottom) = self.at(x.end, y.start);
        (left, top, right, bottom)
    }
}

/// A range with room in it: an empty or reversed one is widened around its start.
fn widened((lo, hi): (f64, f64)) -> std::ops::Range<f64> {
    if hi > lo && lo.is_finite() && hi.is_finite() {
        lo..hi
    } else {
        let lo = if lo.is_finite() { lo } else { 0.0 };
        lo - 1.0..lo + 1.0
    }
}

fn text(size: f64, color: RGBColor) -> TextStyle<'static> {
    ("sans-serif", size * PLOTTERS_FONT_SCALE).into_font().color(&color)
}

/// Draws the canvas, grid and axes, then `marks` (SVG elements, in plot coordinates through [`Plot`]).
/// `label` is what a screen reader reads for the whole chart.
pub(crate) fn chart(canvas: Canvas, label: &str, axes: &Axes, marks: impl FnOnce(&Plot) -> String) -> String {
    let mut svg = String::new();
    let drawn = (|| {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, canvas.height)).into_drawing_area();
        let mut chart = ChartBuilder::on(&root)
            .margin_top(TOP)
            .margin_right(RIGHT)
            .x_label_area_size(BOTTOM)
            .y_label_area_size(LEFT)
            .build_cartesian_2d(widened(axes.x), widened(axes.y))?;
        let x_label = |v: &f64| (axes.x_label)(*v);
        let y_label = |v: &f64| (axes.y_label)(*v);
        let mut mesh = chart.configure_mesh();
        if !axes.x_title.is_empty() {
            mesh.x_desc(axes.x_title);
        }
        if !axes.y_title.is_empty() {
            mesh.y_desc(axes.y_title);
        }
        mesh.disable_x_mesh()
            .max_light_lines(0)
            .bold_line_style(GRID)
            .axis_style(AXIS)
            .x_labels(axes.x_labels)
            .y_labels(axes.y_labels)
            .x_label_formatter(&x_label)
            .y_label_formatter(&y_label)
            .label_style(text(11.0, MUTED))
            .axis_desc_style(text(12.0, INK))
            .draw()?;
        let plot = Plot { spec: chart.as_coord_spec().clone() };
        root.present()?;
        Ok::<_, DrawingAreaErrorKind<std::io::Error>>(plot)
    })();
    match drawn {
        Ok(plot) => finish(svg, canvas, label, &marks(&plot)),
        Err(e) => empty(canvas, label, &format!("The chart could not be drawn: {e}")),
    }
}

/// The canvas with `message` in its middle: a chart with nothing to show.
pub(crate) fn empty(canvas: Canvas, label: &str, message: &str) -> String {
    let mut svg = String::new();
    let middle = (WIDTH as i32 / 2, canvas.height as i32 / 2);
    let drawn = (|| {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, canvas.height)).into_drawing_area();
        let style = text(12.0, MUTED).pos(Pos::new(HPos::Center, VPos::Center));
        root.draw(&Text::new(message.to_string(), middle, style))?;
        root.present()
    })();
    match drawn {
        Ok(()) => finish(svg, canvas, label, ""),
        // Nothing plotters could fail on remains: write the message by hand.
        Err(_) => finish(
            format!(r#"<svg viewBox="0 0 {WIDTH} {}"></svg>"#, canvas.height),
            canvas,
            label,
            &format!(r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#, middle.0, middle.1, message),
        ),
    }
}

/// Gives plotters' `<svg>` element its classes and accessible name, and appends `marks` inside it. Plotters
/// puts each element and each text on a line of its own; the line breaks go (no attribute or label has one).
fn finish(svg: String, canvas: Canvas, label: &str, marks: &str) -> String {
    let svg = svg.replace('\n', "");
    let opened = svg.replacen(
        "<svg ",
        &format!(r#"<svg class="chart {}" role="img" aria-label="{}" "#, canvas.class, super::escape_text(label)),
        1,
    );
    let body = opened.trim_end().strip_suffix("</svg>").unwrap_or(&opened);
    format!("{body}{marks}</svg>")
}

/// A tick label: whole numbers without decimals, others with one.
pub(crate) fn tick_label(v: f64) -> String {
    if v.fract() == 0.0 || v.abs() >= 10.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CANVAS: Canvas = Canvas { height: 200, class: "test" };

    fn axes<'a>(x: (f64, f64), y: (f64, f64), label: &'a dyn Fn(f64) -> String) -> Axes<'a> {
        Axes { x, y, x_labels: 5, y_labels: 5, x_label: label, y_label: label, x_title: "x unit", y_title: "y unit" }
    }

    #[test]
    fn a_chart_is_one_named_svg_element_with_labelled_axes_and_the_marks_inside() {
        let svg = chart(CANVAS, "A <test> chart", &axes((0.0, 100.0), (0.0, 10.0), &tick_label), |plot| {
            let (x, y) = plot.at(50.0, 5.0);
            format!(r#"<circle cx="{x}" cy="{y}" r="2" class="mark"/>"#)
        });
        assert!(svg.starts_with(r#"<svg class="chart test" role="img" aria-label="A &lt;test&gt; chart" "#), "{svg}");
        assert!(svg.ends_with(r#"class="mark"/></svg>"#), "{svg}");
        assert_eq!(svg.matches("<svg").count(), 1);
        for text in [">x unit<", ">y unit<", ">100<", ">0<", ">10<"] {
            assert!(svg.contains(text), "{text} missing: {svg}");
        }
        assert!(!svg.contains("font-family=\"\"") && !svg.contains("url("), "no external fonts or images");
    }

    #[test]
    fn data_map_into_the_plot_area_left_to_right_and_bottom_to_top() {
        let plot_of = |x, y| {
            let mut found = None;
            chart(CANVAS, "", &axes(x, y, &tick_label), |plot| {
                found = Some((plot.at(x.0, y.0), plot.at(x.1, y.1), plot.edges()));
                String::new()
            });
            found.unwrap()
        };
        let (low, high, (left, top, right, bottom)) = plot_of((0.0, 10.0), (0.0, 1.0));
        assert_eq!((low, high), ((left, bottom), (right, top)));
        assert!(left >= LEFT as i32 && right <= (WIDTH - RIGHT) as i32 && top >= TOP as i32 && bottom < 200);
        let (point, _, (left, top, right, bottom)) = plot_of((5.0, 5.0), (3.0, 3.0));
        let middle = ((left + right) / 2, (top + bottom) / 2);
        assert!((point.0 - middle.0).abs() <= 1 && (point.1 - middle.1).abs() <= 1, "one value sits in the middle");
    }

    #[test]
    fn the_empty_state_says_why() {
        let svg = empty(CANVAS, "nothing", "No data <yet>");
        assert!(svg.starts_with(r#"<svg class="chart test""#) && svg.ends_with("</svg>"));
        assert!(svg.contains("No data &lt;yet&gt;"), "{svg}");
    }
}
