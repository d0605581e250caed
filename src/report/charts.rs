//! Charts as SVG text, drawn by `plotters` through its SVG backend: a distribution as bars,
//! P(at least k) as a curve, the paired comparison of two choices as stacked bars, and a sweep's
//! means with their intervals as lines. Each function takes plain numbers and labels; what to
//! chart is decided by the page builder.

use super::ReportError;
use crate::format;
use plotters::prelude::*;

const WIDTH: u32 = 600;
const HEIGHT: u32 = 280;
const FONT: &str = "sans-serif";

/// Colours that stay apart for most readers, one per series.
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// The most lines one chart draws: past it the colours repeat and the lines cannot be told
/// apart, so the grids carry the numbers alone.
pub const MAX_LINES: usize = PALETTE.len();

/// How a legend marks a series: a line for a curve, a box for bars.
#[derive(Clone, Copy)]
enum Mark {
    Line,
    Bar,
}

/// Height of a legend row, in pixels.
const LEGEND_ROW: u32 = 18;

/// The height of a chart with a legend of `entries` below its plot; one series needs none.
fn height_with_legend(entries: usize) -> u32 {
    if entries > 1 {
        HEIGHT + 8 + LEGEND_ROW * entries as u32
    } else {
        HEIGHT
    }
}

/// The legend, in its own strip below the plot, so it never covers the data.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    names: &[&str],
    mark: Mark,
) -> Result<(), ReportError> {
    if names.len() <= 1 {
        return Ok(());
    }
    let x = 60;
    for (i, name) in names.iter().enumerate() {
        let c = colour(i);
        let y = 4 + (LEGEND_ROW as i32) * i as i32 + (LEGEND_ROW as i32) / 2;
        match mark {
            Mark::Line => area.draw(&PathElement::new(
                vec![(x, y), (x + 20, y)],
                c.stroke_width(2),
            )),
            Mark::Bar => area.draw(&Rectangle::new(
                [(x + 5, y - 5), (x + 15, y + 5)],
                c.filled(),
            )),
        }
        .map_err(chart_error)?;
        area.draw(&Text::new(name.to_string(), (x + 28, y - 5), (FONT, 12)))
            .map_err(chart_error)?;
    }
    Ok(())
}

fn colour(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// A named series of points (x, y).
pub struct Series {
    pub name: String,
    pub points: Vec<(i64, f64)>,
}

fn chart_error<E: std::fmt::Debug>(e: E) -> ReportError {
    ReportError::Chart(format!("{e:?}"))
}

fn value_range(series: &[Series]) -> (i64, i64) {
    let xs = series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let lo = xs.clone().min().unwrap_or(0);
    let hi = xs.max().unwrap_or(0);
    (lo, hi)
}

/// The distribution of one metric: one bar per value, side by side for several choices.
pub fn distribution(x_desc: &str, series: &[Series]) -> Result<String, ReportError> {
    let (lo, hi) = value_range(series);
    let top = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(0.0_f64, f64::max)
        .max(0.01)
        * 1.1;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height_with_legend(series.len())))
            .into_drawing_area();
        root.fill(&WHITE).map_err(chart_error)?;
        let (plot, legend_strip) = root.split_vertically(HEIGHT);
        let mut chart = ChartBuilder::on(&plot)
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(48)
            .build_cartesian_2d(lo as f64 - 0.5..hi as f64 + 0.5, 0.0..top.min(1.0))
            .map_err(chart_error)?;
        chart
            .configure_mesh()
            .max_light_lines(0)
            .disable_x_mesh()
            .x_labels(((hi - lo) as usize + 2).min(24))
            .x_label_formatter(&|x| format::whole_or_blank(*x))
            .y_label_formatter(&|y| format::percent_whole(*y))
            .x_desc(x_desc)
            .y_desc("probability")
            .axis_desc_style((FONT, 14))
            .label_style((FONT, 12))
            .draw()
            .map_err(chart_error)?;
        let width = 0.8 / series.len().max(1) as f64;
        for (i, s) in series.iter().enumerate() {
            let c = colour(i);
            let offset = -0.4 + width * i as f64;
            chart
                .draw_series(s.points.iter().map(|&(x, p)| {
                    let x0 = x as f64 + offset;
                    Rectangle::new([(x0, 0.0), (x0 + width, p)], c.filled())
                }))
                .map_err(chart_error)?;
        }
        let names: Vec<&str> = series.iter().map(|s| s.name.as_str()).collect();
        draw_legend(&legend_strip, &names, Mark::Bar)?;
        root.present().map_err(chart_error)?;
    }
    Ok(svg)
}

/// P(at least k) for every k a metric reaches: a falling staircase, one line per choice or
/// sweep value, under `caption` when it is not empty.
pub fn at_least(caption: &str, x_desc: &str, series: &[Series]) -> Result<String, ReportError> {
    let (lo, hi) = value_range(series);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height_with_legend(series.len())))
            .into_drawing_area();
        root.fill(&WHITE).map_err(chart_error)?;
        let (plot, legend_strip) = root.split_vertically(HEIGHT);
        let mut builder = ChartBuilder::on(&plot);
        builder
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(48);
        if !caption.is_empty() {
            builder.caption(caption, (FONT, 13));
        }
        let mut chart = builder
            .build_cartesian_2d(lo as f64 - 0.5..hi as f64 + 0.5, 0.0..1.05)
            .map_err(chart_error)?;
        chart
            .configure_mesh()
            .max_light_lines(0)
            .x_labels(((hi - lo) as usize + 2).min(24))
            .x_label_formatter(&|x| format::whole_or_blank(*x))
            .y_label_formatter(&|y| format::percent_whole(*y))
            .x_desc(format!("k ({x_desc})"))
            .y_desc("P(at least k)")
            .axis_desc_style((FONT, 14))
            .label_style((FONT, 12))
            .draw()
            .map_err(chart_error)?;
        for (i, s) in series.iter().enumerate() {
            let c = colour(i);
            let points: Vec<(f64, f64)> = s.points.iter().map(|&(x, p)| (x as f64, p)).collect();
            chart
                .draw_series(LineSeries::new(points.clone(), c.stroke_width(2)))
                .map_err(chart_error)?;
            chart
                .draw_series(points.into_iter().map(|p| Circle::new(p, 3, c.filled())))
                .map_err(chart_error)?;
        }
        let names: Vec<&str> = series.iter().map(|s| s.name.as_str()).collect();
        draw_legend(&legend_strip, &names, Mark::Line)?;
        root.present().map_err(chart_error)?;
    }
    Ok(svg)
}

/// One row of the comparison chart: the metric, then P(first higher), P(equal), P(second higher).
pub struct Split {
    pub name: String,
    pub first: f64,
    pub equal: f64,
    pub second: f64,
}

/// How often the first choice beats the second on the same trials, per metric: a stacked bar
/// of P(first higher), P(equal) and P(second higher), which sum to 100%.
pub fn comparison(first: &str, second: &str, rows: &[Split]) -> Result<String, ReportError> {
    let n = rows.len().max(1);
    let height = (60 + 28 * n as u32).max(140);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(chart_error)?;
        let label_width = rows
            .iter()
            .map(|r| r.name.chars().count())
            .max()
            .unwrap_or(8) as u32
            * 7
            + 12;
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .caption(
                format!("blue: {first} higher, grey: equal, orange: {second} higher"),
                (FONT, 13),
            )
            .x_label_area_size(30)
            .y_label_area_size(label_width.min(WIDTH / 2))
            .build_cartesian_2d(0.0..1.0, -0.5..n as f64 - 0.5)
            .map_err(chart_error)?;
        let names: Vec<String> = rows.iter().map(|r| r.name.clone()).collect();
        let row_name = move |y: &f64| {
            let i = y.round();
            if (y - i).abs() < 1e-9 && i >= 0.0 {
                names.get(n - 1 - i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        };
        chart
            .configure_mesh()
            .max_light_lines(0)
            .disable_y_mesh()
            .y_labels(2 * n + 1)
            .y_label_formatter(&row_name)
            .x_label_formatter(&|x| format::percent_whole(*x))
            .label_style((FONT, 12))
            .draw()
            .map_err(chart_error)?;
        // The caption names these colours, so no legend covers the bars.
        let parts = [colour(0), RGBColor(200, 200, 200), colour(1)];
        for (part, &c) in parts.iter().enumerate() {
            chart
                .draw_series(rows.iter().enumerate().map(|(i, r)| {
                    let y = (n - 1 - i) as f64;
                    let (start, width) = match part {
                        0 => (0.0, r.first),
                        1 => (r.first, r.equal),
                        _ => (r.first + r.equal, r.second),
                    };
                    Rectangle::new([(start, y - 0.35), (start + width, y + 0.35)], c.filled())
                }))
                .map_err(chart_error)?;
        }
        root.present().map_err(chart_error)?;
    }
    Ok(svg)
}

/// A mean with its 95% interval.
#[derive(Debug, Clone, Copy)]
pub struct Estimate {
    pub mean: f64,
    pub low: f64,
    pub high: f64,
}

/// A sweep's means along its first key, one line per value of its second key, with each
/// mean's 95% interval as a vertical bar.
pub fn sweep_means(
    caption: &str,
    x_desc: &str,
    y_desc: &str,
    x_labels: &[String],
    series: &[(String, Vec<Option<Estimate>>)],
) -> Result<String, ReportError> {
    let n = x_labels.len().max(1);
    let (lo, hi) = series
        .iter()
        .flat_map(|(_, v)| v.iter().flatten())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), e| {
            (lo.min(e.low), hi.max(e.high))
        });
    let (lo, hi) = if lo.is_finite() { (lo, hi) } else { (0.0, 1.0) };
    let pad = ((hi - lo) * 0.08).max(0.05);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height_with_legend(series.len())))
            .into_drawing_area();
        root.fill(&WHITE).map_err(chart_error)?;
        let (plot, legend_strip) = root.split_vertically(HEIGHT);
        let mut chart = ChartBuilder::on(&plot)
            .margin(12)
            .caption(caption, (FONT, 13))
            .x_label_area_size(36)
            .y_label_area_size(48)
            .build_cartesian_2d(-0.5..n as f64 - 0.5, (lo - pad).min(0.0)..hi + pad)
            .map_err(chart_error)?;
        let labels = x_labels.to_vec();
        let x_name = move |x: &f64| {
            let i = x.round();
            if (x - i).abs() < 1e-9 && i >= 0.0 {
                labels.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        };
        chart
            .configure_mesh()
            .max_light_lines(0)
            .disable_x_mesh()
            .x_labels(2 * n + 1)
            .x_label_formatter(&x_name)
            .x_desc(x_desc)
            .y_desc(y_desc)
            .axis_desc_style((FONT, 14))
            .label_style((FONT, 12))
            .draw()
            .map_err(chart_error)?;
        for (i, (_, values)) in series.iter().enumerate() {
            let c = colour(i);
            let points: Vec<(f64, Estimate)> = values
                .iter()
                .enumerate()
                .filter_map(|(x, e)| e.map(|e| (x as f64, e)))
                .collect();
            chart
                .draw_series(LineSeries::new(
                    points.iter().map(|(x, e)| (*x, e.mean)),
                    c.stroke_width(2),
                ))
                .map_err(chart_error)?;
            chart
                .draw_series(points.iter().map(|(x, e)| {
                    PathElement::new(vec![(*x, e.low), (*x, e.high)], c.stroke_width(1))
                }))
                .map_err(chart_error)?;
            chart
                .draw_series(
                    points
                        .iter()
                        .map(|(x, e)| Circle::new((*x, e.mean), 3, c.filled())),
                )
                .map_err(chart_error)?;
        }
        let names: Vec<&str> = series.iter().map(|(name, _)| name.as_str()).collect();
        draw_legend(&legend_strip, &names, Mark::Line)?;
        root.present().map_err(chart_error)?;
    }
    Ok(svg)
}
