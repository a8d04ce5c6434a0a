/**
 * @module Data a page reads with a plain GET, read again when `key` changes (e.g. when the live
 * stream says something changed), never on a timer of its own.
 */
import { useEffect, useState } from 'preact/hooks';

export interface Fetched<T> {
  data: T | undefined;
  error: unknown;
  reload: () => void;
}

export function useFetched<T>(load: () => Promise<T>, key: unknown[]): Fetched<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    load()
      .then((value) => {
        if (!current) return;
        setData(value);
        setError(undefined);
      })
      .catch((e: unknown) => {
        if (current) setError(e);
      });
    return () => {
      current = false;
    };
  }, [...key, round]);
  return { data, error, reload: () => setRound((r) => r + 1) };
}
