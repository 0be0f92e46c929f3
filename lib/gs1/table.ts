// The expanded AI table: one AiDef per AI, with its label and length rules precomputed.
import { AI_RANGES } from './ai-table';
import { LABELS } from './labels';
import type { AiDef, AiRange } from './types';

function rowKey(r: AiRange): string {
  return r.ai === r.to ? r.ai : `${r.ai}-${r.to}`;
}

function expand(): Map<string, AiDef> {
  const map = new Map<string, AiDef>();
  for (const row of AI_RANGES) {
    const label = LABELS[rowKey(row)];
    // A missing label is a programming error in labels.ts: fail loudly at load, never silently.
    if (!label) throw new Error(`gs1: no label for AI row ${rowKey(row)}`);
    let min = 0;
    let max = 0;
    let fixed = true;
    for (const [, pmin, pmax, optional] of row.parts) {
      if (!optional) min += pmin;
      max += pmax;
      if (optional || pmin !== pmax) fixed = false;
    }
    const width = row.ai.length;
    for (let n = Number(row.ai); n <= Number(row.to); n++) {
      const ai = String(n).padStart(width, '0');
      map.set(ai, { ...row, ai, to: ai, label, fixedLength: fixed ? max : null, minLength: min, maxLength: max });
    }
  }
  return map;
}

/** Every AI of the table, keyed by its digits. */
export const AI_TABLE: ReadonlyMap<string, AiDef> = expand();

/** The AI definition for an AI string, or undefined. */
export function aiDef(ai: string): AiDef | undefined {
  return AI_TABLE.get(ai);
}

/** The human label of an AI (SPEC 2.2 style), or undefined for an unknown AI. */
export function aiLabel(ai: string): string | undefined {
  return AI_TABLE.get(ai)?.label;
}

/**
 * Finds the AI at the start of `s` (2 to 4 digits). GS1 AIs form a prefix-free code, so at most
 * one of the candidate lengths matches. Returns undefined when none does.
 */
export function matchAi(s: string, at: number): AiDef | undefined {
  for (let len = 2; len <= 4; len++) {
    const d = AI_TABLE.get(s.slice(at, at + len));
    if (d && s.length >= at + len) return d;
  }
  return undefined;
}

/**
 * How many digits an unknown AI starting with these two digits would have, per the AI length
 * implied by its first two digits in our table (used to name the AI in an `unknown_ai` error).
 */
export function probableAiLength(prefix2: string): number {
  for (const ai of AI_TABLE.keys()) if (ai.startsWith(prefix2)) return ai.length;
  return 2;
}

/** Does an AI match a dictionary pattern such as '310n' or '31nn' ('n' = any digit)? */
export function aiMatches(ai: string, pattern: string): boolean {
  if (ai.length !== pattern.length) return false;
  for (let i = 0; i < ai.length; i++) {
    if (pattern[i] !== 'n' && pattern[i] !== ai[i]) return false;
  }
  return true;
}
