// PNG line charts for bench/results/: Apache ECharts renders the chart to SVG on the server (no
// browser, no canvas), resvg rasterizes it with the machine's fonts (DejaVu Sans, Debian's
// fonts-dejavu-core).
import { writeFileSync } from 'node:fs';
import * as echarts from 'echarts';
import { Resvg } from '@resvg/resvg-js';

export interface Series {
  name: string;
  /** [x, y] points; y NaN is left out. */
  points: Array<[number, number]>;
}

export interface Panel {
  title: string;
  xName: string;
  yName: string;
  /** Logarithmic x axis (sizes that grow tenfold). */
  logX?: boolean;
  series: Series[];
}

const WIDTH = 520;
const HEIGHT = 400;

/** Writes the panels side by side as one PNG at `path`. */
export function writeLinePlots(path: string, panels: Panel[]): void {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: WIDTH * panels.length, height: HEIGHT });
  const share = 100 / panels.length;
  chart.setOption({
    animation: false,
    backgroundColor: '#ffffff',
    textStyle: { fontFamily: 'DejaVu Sans' },
    title: panels.map((p, i) => ({
      text: p.title,
      left: `${i * share + share / 2}%`,
      textAlign: 'center',
      top: 8,
      textStyle: { fontSize: 14 },
    })),
    legend: panels.map((p, i) => ({
      data: p.series.map((s) => s.name),
      left: `${i * share + share * 0.3}%`,
      top: 34,
      orient: 'vertical',
      align: 'left',
    })),
    grid: panels.map((_, i) => ({ left: `${i * share + 7}%`, width: `${share - 11}%`, top: 110, bottom: 50 })),
    xAxis: panels.map((p, i) => ({
      gridIndex: i,
      type: p.logX ? 'log' : 'value',
      name: p.xName,
      nameLocation: 'middle',
      nameGap: 28,
    })),
    yAxis: panels.map((p, i) => ({ gridIndex: i, type: 'value', name: p.yName, min: 0 })),
    series: panels.flatMap((p, i) =>
      p.series.map((s) => ({
        type: 'line',
        name: s.name,
        xAxisIndex: i,
        yAxisIndex: i,
        symbolSize: 8,
        label: { show: true, fontSize: 11 },
        data: s.points.filter(([, y]) => Number.isFinite(y)),
      })),
    ),
  });
  const svg = chart.renderToSVGString();
  chart.dispose();
  const png = new Resvg(svg, {
    background: '#ffffff',
    font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' },
  })
    .render()
    .asPng();
  writeFileSync(path, png);
}
