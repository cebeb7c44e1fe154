//! The frame every chart shares: the `<svg>` element, plot margins, grid lines with tick labels, axis titles
//! and the empty state. Charts draw their data inside it.

use std::fmt::Write;

use super::scale::Scale;

/// A chart's size and plot margins, in SVG units.
#[derive(Debug, Clone, Copy)]
pub(super) struct Frame {
    pub width: f64,
    pub height: f64,
    pub left: f64,
    pub right: f64,
    pub top: f64,
    pub bottom: f64,
}

impl Frame {
    /// The usual frame: 720 units wide, room for tick labels left and below.
    pub const fn new(height: f64) -> Self {
        Self { width: 720.0, height, left: 56.0, right: 12.0, top: 14.0, bottom: 40.0 }
    }

    /// Opens the `<svg>` element; `label` is read out by screen readers.
    pub fn open(&self, class: &str, label: &str) -> String {
        format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {}" class="chart {class}" role="img" aria-label="{label}">"#,
            self.width, self.height
        )
    }

    /// Writes `message` in the middle and closes the element.
    pub fn empty(&self, svg: &mut String, message: &str) {
        let _ = write!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="middle" class="empty">{message}</text></svg>"#,
            self.width / 2.0,
            self.height / 2.0
        );
    }

    /// Maps `[lo, hi]` across the plot.
    pub fn x_scale(&self, lo: f64, hi: f64) -> Scale {
        Scale::new(lo, hi, self.left, self.width - self.right)
    }

    /// Maps `[lo, hi]` up the plot.
    pub fn y_scale(&self, lo: f64, hi: f64) -> Scale {
        Scale::new(lo, hi, self.height - self.bottom, self.top)
    }

    /// Horizontal grid lines at `ticks`, labelled on the left.
    pub fn y_grid(
        &self,
        svg: &mut String,
        y: &Scale,
        ticks: impl IntoIterator<Item = f64>,
        label: impl Fn(f64) -> String,
    ) {
        for tick in ticks {
            let py = y.at(tick);
            let _ = write!(
                svg,
                r#"<line x1="{}" x2="{}" y1="{py:.1}" y2="{py:.1}" class="grid"/><text x="{}" y="{:.1}" text-anchor="end" class="tick">{}</text>"#,
                self.left,
                self.width - self.right,
                self.left - 6.0,
                py + 4.0,
                label(tick)
            );
        }
    }

    /// Tick labels under the plot.
    pub fn x_ticks(
        &self,
        svg: &mut String,
        x: &Scale,
        ticks: impl IntoIterator<Item = f64>,
        label: impl Fn(f64) -> String,
    ) {
        for tick in ticks {
            let _ = write!(
                svg,
                r#"<text x="{:.1}" y="{}" text-anchor="middle" class="tick">{}</text>"#,
                x.at(tick),
                self.height - self.bottom + 16.0,
                label(tick)
            );
        }
    }

    /// The x axis title, centred under the tick labels.
    pub fn x_title(&self, svg: &mut String, title: &str) {
        let _ = write!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="middle" class="axis">{title}</text>"#,
            (self.left + self.width - self.right) / 2.0,
            self.height - 4.0
        );
    }

    /// The y axis title, turned along the axis.
    pub fn y_title(&self, svg: &mut String, title: &str) {
        let mid = (self.top + self.height - self.bottom) / 2.0;
        let _ = write!(
            svg,
            r#"<text x="14" y="{mid}" text-anchor="middle" class="axis" transform="rotate(-90 14 {mid})">{title}</text>"#
        );
    }
}
