/**
 * The 1200×630 OG card as satori element objects ({type, props}); no JSX runtime needed.
 *
 * Sparkline orientation: up means better. For lower-is-better metrics the y axis is inverted, the
 * same convention as /api/sparkline (see src/core/sparkline-svg.ts), as is the dashed drawing of
 * carried points (OgModel.gaps).
 */
import { coordsToString, sparklineCoords, sparklineLabels, sparklineRuns } from '../core/sparkline-svg.ts';
import { FONT_FAMILY } from './fonts.ts';
import type { OgModel } from './og-model.ts';
import { fitFontSize } from './text-fit.ts';

export type Style = Readonly<Record<string, string | number>>;
export interface OgNode {
  readonly type: string;
  readonly props: { readonly style?: Style; readonly children?: OgChild | readonly OgChild[] } & Readonly<
    Record<string, unknown>
  >;
}
export type OgChild = OgNode | string;

export const OG_WIDTH = 1200;
export const OG_HEIGHT = 630;
const PAD_X = 64;
const CONTENT_W = OG_WIDTH - 2 * PAD_X;
const SPARK_H = 106;
/** One line of text, ellipsised as a last resort rather than overflowing the card. */
const ONE_LINE: Style = { whiteSpace: 'nowrap', overflow: 'hidden', textOverflow: 'ellipsis' };
/** Room for "95% CI 950 ms–1.20 s" beside the value. */
const CI_W = 420;
const CI_GAP = 28;

const C = {
  bg: '#fbfaf7',
  ink: '#12151b',
  body: '#2b313b',
  muted: '#4d5562',
  rule: '#dedad0',
  accent: '#2457d6',
  accentFill: 'rgba(36, 87, 214, 0.10)',
  draft: '#8a4b00',
  draftBg: '#fdf0dc',
} as const;

function el(type: string, style: Style, children?: OgChild | readonly OgChild[]): OgNode {
  return { type, props: children === undefined ? { style } : { style, children } };
}

/** A small uppercase label in the header (SIMULATED DATA, DRAFT). */
function badge(text: string, color: string, backgroundColor: string): OgNode {
  return el(
    'div',
    {
      display: 'flex',
      fontSize: 13,
      fontWeight: 800,
      letterSpacing: 1.5,
      color,
      backgroundColor,
      padding: '4px 10px',
      borderRadius: 4,
      marginRight: 14,
    },
    text,
  );
}

function header(m: OgModel): OgNode {
  const kicker = `${m.category} · No. ${m.number}`.toUpperCase();
  const kickerSize = fitFontSize(kicker, { width: 460, max: 16, min: 11, weight: 600, tracking: 0.12 });
  const nameSize = fitFontSize(m.siteName, { width: CONTENT_W - 520 - 44, max: 30, min: 16, weight: 800 });
  const right: OgChild[] = [];
  if (m.simulated) right.push(badge('SIMULATED DATA', '#ffffff', '#b42318'));
  if (m.isDraft) right.push(badge('DRAFT', C.draft, C.draftBg));
  right.push(
    el(
      'div',
      {
        display: 'block',
        maxWidth: 460,
        fontSize: kickerSize,
        fontWeight: 600,
        letterSpacing: kickerSize * 0.12,
        color: C.muted,
        ...ONE_LINE,
      },
      kicker,
    ),
  );
  return el('div', { display: 'flex', alignItems: 'center', justifyContent: 'space-between', height: 40 }, [
    el('div', { display: 'flex', alignItems: 'center', maxWidth: CONTENT_W - 520 }, [
      el('div', {
        display: 'flex',
        width: 28,
        height: 28,
        borderRadius: 6,
        backgroundColor: C.accent,
        marginRight: 14,
        flexShrink: 0,
      }),
      el(
        'div',
        {
          display: 'block',
          fontSize: nameSize,
          fontWeight: 800,
          color: C.ink,
          ...ONE_LINE,
        },
        m.siteName,
      ),
    ]),
    el('div', { display: 'flex', alignItems: 'center', flexShrink: 0 }, right),
  ]);
}

function body(m: OgModel): OgNode {
  const metric = m.metric.toUpperCase();
  const metricSize = fitFontSize(metric, { width: CONTENT_W, max: 18, min: 12, weight: 600, tracking: 0.12 });
  // The interval sits right of the value, smaller, on its baseline: the value keeps the rest.
  const ciSize = m.ciText ? fitFontSize(m.ciText, { width: CI_W, max: 34, min: 20, weight: 600 }) : 0;
  const valueW = m.ciText ? CONTENT_W - CI_W - CI_GAP : CONTENT_W;
  const valueSize = m.hasValue
    ? fitFontSize(m.valueText, { width: valueW, max: 132, min: 48, weight: 800, tracking: -0.02 })
    : fitFontSize(m.valueText, { width: valueW, max: 84, min: 40, weight: 800, tracking: -0.02 });
  const leadSize = fitFontSize(m.leadLine, { width: CONTENT_W, max: 32, min: 20, weight: 400, lines: 2 });
  const leadLineHeight = 1.25;
  return el('div', { display: 'flex', flexDirection: 'column', marginTop: 24 }, [
    el(
      'div',
      {
        display: 'block',
        fontSize: metricSize,
        fontWeight: 600,
        letterSpacing: metricSize * 0.12,
        color: C.muted,
        ...ONE_LINE,
      },
      metric,
    ),
    el(
      'div',
      {
        display: 'flex',
        alignItems: 'flex-end',
        height: 142,
        marginTop: 4,
      },
      [
        el(
          'div',
          {
            display: 'block',
            maxWidth: valueW,
            fontSize: valueSize,
            fontWeight: 800,
            letterSpacing: -0.02 * valueSize,
            lineHeight: 1.12,
            color: m.hasValue ? C.ink : C.muted,
            ...ONE_LINE,
          },
          m.valueText,
        ),
        ...(m.ciText
          ? [
              el(
                'div',
                {
                  display: 'block',
                  maxWidth: CI_W,
                  marginLeft: CI_GAP,
                  // Lifts the smaller text to the big value's baseline (its descender space).
                  marginBottom: Math.round(valueSize * 0.2),
                  fontSize: ciSize,
                  fontWeight: 600,
                  color: C.muted,
                  ...ONE_LINE,
                },
                m.ciText,
              ),
            ]
          : []),
      ],
    ),
    el(
      'div',
      {
        display: 'block',
        width: CONTENT_W,
        height: Math.ceil(2 * leadSize * leadLineHeight) + 2,
        marginTop: 18,
        fontSize: leadSize,
        lineHeight: leadLineHeight,
        color: C.body,
        overflow: 'hidden',
        lineClamp: 2,
      },
      m.leadLine,
    ),
  ]);
}

function sparkline(m: OgModel): OgNode {
  const stroke = 4;
  const pad = 4;
  // The scale: best and worst values labelled at their heights in a right-hand gutter.
  const labelSize = 17;
  const labels = sparklineLabels(m.points, SPARK_H, pad, m.higherIsBetter, m.unit, labelSize);
  const gutter = labels.length ? 150 : 0;
  const plotW = CONTENT_W - gutter;
  const coords = sparklineCoords(m.points, plotW, SPARK_H, pad, m.higherIsBetter, m.unit);
  const runs = sparklineRuns(m.points, coords, m.gaps);
  let shapes: OgNode[];
  if (coords.length >= 2) {
    const line = coordsToString(coords);
    const first = coords[0]!;
    const last = coords[coords.length - 1]!;
    const base = SPARK_H;
    shapes = [
      {
        type: 'polygon',
        props: { points: `${first[0]},${base} ${line} ${last[0]},${base}`, fill: C.accentFill },
      },
      // Measured runs solid, carried runs dashed (round caps lengthen each dash by the stroke: 12 on, 8 off).
      ...runs.map(
        (r): OgNode => ({
          type: 'polyline',
          props: {
            points: coordsToString(r.coords),
            fill: 'none',
            stroke: C.accent,
            'stroke-width': stroke,
            'stroke-linecap': 'round',
            'stroke-linejoin': 'round',
            ...(r.carried ? { 'stroke-dasharray': '8 12' } : {}),
          },
        }),
      ),
    ];
  } else {
    const y = SPARK_H / 2;
    shapes = [
      {
        type: 'line',
        props: {
          x1: pad,
          y1: y,
          x2: plotW - pad,
          y2: y,
          stroke: C.muted,
          'stroke-width': 3,
          'stroke-dasharray': '8 10',
          'stroke-opacity': 0.5,
        },
      },
    ];
  }
  const caption =
    coords.length >= 2
      ? `LEADER · LAST 24 H${m.filterLabel ? ` · ${m.filterLabel.toUpperCase()}` : ''} · UP = BETTER${m.higherIsBetter ? '' : ' (LOWER IS BETTER)'}${runs.some((r) => r.carried) ? ' · DASHED = NOT MEASURED' : ''}`
      : 'NO 24 H SERIES YET';
  const labelNodes = labels.map((l) =>
    el(
      'div',
      {
        position: 'absolute',
        right: 0,
        top: Math.max(0, l.y - labelSize),
        display: 'flex',
        fontSize: labelSize,
        fontWeight: 600,
        color: C.muted,
      },
      l.text,
    ),
  );
  return el('div', { display: 'flex', flexDirection: 'column' }, [
    el(
      'div',
      { display: 'flex', fontSize: 12, fontWeight: 600, letterSpacing: 1.5, color: C.muted },
      caption,
    ),
    el('div', { display: 'flex', position: 'relative', width: CONTENT_W, height: SPARK_H, marginTop: 6 }, [
      {
        type: 'svg',
        props: {
          width: plotW,
          height: SPARK_H,
          viewBox: `0 0 ${plotW} ${SPARK_H}`,
          children: shapes,
        },
      },
      ...labelNodes,
    ]),
  ]);
}

function footer(m: OgModel): OgNode {
  const right = `${m.asOfDate ? `as of ${m.asOfDate}` : 'no samples yet'} · ${m.license}`;
  const urlSize = fitFontSize(m.pageUrl, { width: CONTENT_W - 380, max: 20, min: 12, weight: 600 });
  return el(
    'div',
    {
      display: 'flex',
      justifyContent: 'space-between',
      alignItems: 'center',
      borderTop: `1px solid ${C.rule}`,
      paddingTop: 16,
      fontSize: 18,
      color: C.muted,
    },
    [
      el(
        'div',
        {
          display: 'block',
          maxWidth: CONTENT_W - 370,
          fontSize: urlSize,
          fontWeight: 600,
          color: C.ink,
          ...ONE_LINE,
        },
        m.pageUrl,
      ),
      el('div', { display: 'flex', flexShrink: 0 }, right),
    ],
  );
}

/**
 * Across the whole card, so a screenshot or a crop of the demo never reads as a real result.
 */
function watermark(): OgNode {
  return el(
    'div',
    {
      position: 'absolute',
      left: 0,
      top: 0,
      width: OG_WIDTH,
      height: OG_HEIGHT,
      display: 'flex',
      alignItems: 'center',
      justifyContent: 'center',
    },
    el(
      'div',
      {
        display: 'flex',
        fontSize: 150,
        fontWeight: 800,
        letterSpacing: 12,
        color: 'rgba(200, 40, 40, 0.13)',
        transform: 'rotate(-14deg)',
      },
      'SIMULATED',
    ),
  );
}

/** The whole card; pure, so the same model always yields the same tree (and the same PNG). */
export function ogElement(m: OgModel): OgNode {
  return el(
    'div',
    {
      display: 'flex',
      flexDirection: 'column',
      justifyContent: 'space-between',
      width: OG_WIDTH,
      height: OG_HEIGHT,
      boxSizing: 'border-box',
      padding: `52px ${PAD_X}px 36px`,
      backgroundColor: C.bg,
      fontFamily: FONT_FAMILY,
      color: C.ink,
      position: 'relative',
    },
    [
      ...(m.simulated ? [watermark()] : []),
      el('div', { display: 'flex', flexDirection: 'column' }, [header(m), body(m)]),
      el('div', { display: 'flex', flexDirection: 'column' }, [
        sparkline(m),
        el('div', { display: 'flex', height: 18 }),
        footer(m),
      ]),
    ],
  );
}

/** Every text of the card in drawing order (the watermark first): the PNG's Description. */
export function cardTexts(node: OgChild): string[] {
  if (typeof node === 'string') return [node];
  const c = node.props.children;
  if (c === undefined) return [];
  return (Array.isArray(c) ? c : [c]).flatMap((x: OgChild) => cardTexts(x));
}
