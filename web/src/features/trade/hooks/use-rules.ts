/** The published trading rules (durations, payout rates, stake limits, fees). */
import { useCallback, useEffect, useState } from 'react';

import { errorMessage } from '@/lib/api-client';

import { type Rule, tradeApi } from '../api';

export function useRules() {
  const [rules, setRules] = useState<Rule[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(async () => {
    setError(null);
    try {
      const answer = await tradeApi.rules();
      setRules(answer.rules.filter((r) => r.enabled).sort((a, b) => a.duration - b.duration));
    } catch (e) {
      setError(errorMessage(e, 'trade.rulesFailed'));
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);
  return { rules, error, retry: load };
}
