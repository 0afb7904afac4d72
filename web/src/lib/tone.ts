/**
 * A short tone at volume 0.5 (spec §9), made in the page with the Web Audio API so that no
 * sound file is fetched: a new notification, a rising pending-order badge in the back-office.
 */
export const SOUND_VOLUME = 0.5;
const TONE_HZ = 880;
const TONE_S = 0.18;

let audio: AudioContext | null = null;

export function playTone(): void {
  try {
    const Context = window.AudioContext ?? (window as unknown as { webkitAudioContext?: typeof AudioContext }).webkitAudioContext;
    if (!Context) return;
    audio ??= new Context();
    if (audio.state === 'suspended') void audio.resume();
    const oscillator = audio.createOscillator();
    const gain = audio.createGain();
    oscillator.frequency.value = TONE_HZ;
    gain.gain.setValueAtTime(SOUND_VOLUME, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + TONE_S);
    oscillator.connect(gain).connect(audio.destination);
    oscillator.start();
    oscillator.stop(audio.currentTime + TONE_S);
  } catch {
    // Audio blocked until the user interacts with the page: stay silent.
  }
}
