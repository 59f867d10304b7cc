<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>SlotOrderFigure</name>
    <message>
        <source>Shows elements %1 of the block&apos;s %2 and the %3 of its %4 bytes that hold them.</source>
        <translation>Zeigt die Elemente %1 der %2 des Blocks und die %3 seiner %4 Bytes, die sie enthalten.</translation>
    </message>
    <message>
        <location filename="../widgets/figures/slotorderfigure.cpp" line="53"/>
        <source>no layout to draw</source>
        <translation>kein Layout zum Zeichnen</translation>
    </message>
    <message>
        <location filename="../widgets/figures/slotorderfigure.cpp" line="115"/>
        <source>no element fits the diagram</source>
        <translation>kein Element passt in das Diagramm</translation>
    </message>
    <message>
        <location filename="../widgets/figures/slotorderfigure.cpp" line="160"/>
        <source>natural</source>
        <translation>natürlich</translation>
    </message>
    <message>
        <location filename="../widgets/figures/slotorderfigure.cpp" line="167"/>
        <source>%1 · b = %2 · pack axis %3 · %4-bit words · slot order %5</source>
        <translation>%1 · b = %2 · Packachse %3 · %4-Bit-Wörter · Slot-Reihenfolge %5</translation>
    </message>
    <message>
        <location filename="../widgets/figures/slotorderfigure.cpp" line="257"/>
        <source>%1 word %2</source>
        <translation>%1 Wort %2</translation>
    </message>
    <message>
        <location filename="../widgets/figures/slotorderfigure.cpp" line="291"/>
        <source>slot %1</source>
        <translation>Slot %1</translation>
    </message>
    <message>
        <location filename="../widgets/figures/slotorderfigure.cpp" line="299"/>
        <source>n = output row</source>
        <translation>n = Ausgabezeile</translation>
    </message>
    <message>
        <location filename="../widgets/figures/slotorderfigure.cpp" line="300"/>
        <source>element index within the block</source>
        <translation>Elementindex im Block</translation>
    </message>
    <message>
        <location filename="../widgets/figures/slotorderfigure.cpp" line="301"/>
        <source>k = input column, n = output row</source>
        <translation>k = Eingabespalte, n = Ausgabezeile</translation>
    </message>
    <message>
        <location filename="../widgets/figures/slotorderfigure.cpp" line="303"/>
        <source>Top: logical elements (%1), colour by element. Bottom: bits of the stored %2 words, the most significant bit on the left.</source>
        <translation>Oben: logische Elemente (%1), Farbe je Element. Unten: Bits der gespeicherten %2-Wörter, das höchstwertige Bit links.</translation>
    </message>
    <message>
        <location filename="../widgets/figures/slotorderfigure.cpp" line="310"/>
        <source>Elements with pieces ₀ ₁ are split across words or bit planes: piece ₀ holds the low bits.</source>
        <translation>Elemente mit Teilen ₀ ₁ sind auf Wörter oder Bitebenen verteilt: Teil ₀ enthält die niedrigen Bits.</translation>
    </message>
    <message>
        <location filename="../widgets/figures/slotorderfigure.cpp" line="312"/>
        <source>Slot s holds the word&apos;s element order[s]: %1.</source>
        <translation>Slot s enthält das Element order[s] des Worts: %1.</translation>
    </message>
</context>
<context>
    <name>WordFigure</name>
    <message>
        <location filename="../widgets/figures/wordfigure.cpp" line="62"/>
        <source>One block: %1 bytes, fields in byte order, bit ticks within each byte</source>
        <translation>Ein Block: %1 Bytes, Felder in Byte-Reihenfolge, Bitmarken in jedem Byte</translation>
    </message>
    <message>
        <location filename="../widgets/figures/wordfigure.cpp" line="64"/>
        <source>One %1-bit word of %2, the most significant bit on the left</source>
        <translation>Ein %1-Bit-Wort von %2, das höchstwertige Bit links</translation>
    </message>
    <message>
        <location filename="../widgets/figures/wordfigure.cpp" line="125"/>
        <source>%1  @%2, %3 bytes, %4: %5</source>
        <translation>%1  @%2, %3 Bytes, %4: %5</translation>
    </message>
    <message>
        <location filename="../widgets/figures/wordfigure.cpp" line="183"/>
        <source>%1 word %2 holds:</source>
        <translation>%1 Wort %2 enthält:</translation>
    </message>
    <message>
        <location filename="../widgets/figures/wordfigure.cpp" line="190"/>
        <source>word %1 bits %2..%3</source>
        <translation>Wort %1 Bits %2..%3</translation>
    </message>
    <message>
        <location filename="../widgets/figures/wordfigure.cpp" line="193"/>
        <source>element (n %1, k %2)%3: %4</source>
        <translation>Element (n %1, k %2)%3: %4</translation>
    </message>
    <message>
        <location filename="../widgets/figures/wordfigure.cpp" line="196"/>
        <source>, slot %1</source>
        <translation>, Slot %1</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Export the view shown (--view) to FILE as PNG, SVG or PDF, or its table as CSV (tensors, metadata, diff, verify, recipe, error), by the extension, and exit.</source>
        <translation>Die gezeigte Ansicht (--view) als PNG, SVG oder PDF oder ihre Tabelle als CSV (tensors, metadata, diff, verify, recipe, error), nach der Endung, in FILE exportieren und beenden.</translation>
    </message>
    <message>
        <location filename="../widgets/launchoptions.cpp" line="27"/>
        <source>See and check the memory layouts of quantized LLM weights.</source>
        <translation>Speicherlayouts quantisierter LLM-Gewichte ansehen und prüfen.</translation>
    </message>
    <message>
        <location filename="../widgets/launchoptions.cpp" line="31"/>
        <source>A .gguf or .safetensors file, a checkpoint folder, an http(s) URL or hf://ORG/REPO. Without it the demo checkpoint opens.</source>
        <translation>Eine .gguf- oder .safetensors-Datei, ein Checkpoint-Ordner, eine http(s)-URL oder hf://ORG/REPO. Ohne Angabe öffnet sich der Demo-Checkpoint.</translation>
    </message>
    <message>
        <location filename="../widgets/launchoptions.cpp" line="34"/>
        <source>Select the logical weight NAME.</source>
        <translation>Das logische Gewicht NAME auswählen.</translation>
    </message>
    <message>
        <location filename="../widgets/launchoptions.cpp" line="37"/>
        <source>Use the language CODE (de, en, ...) instead of the system&apos;s.</source>
        <translation>Die Sprache CODE (de, en, …) statt der Systemsprache verwenden.</translation>
    </message>
    <message>
        <location filename="../widgets/launchoptions.cpp" line="39"/>
        <source>Use the theme NAME (system, light, dark).</source>
        <translation>Das Farbschema NAME verwenden (system, light, dark).</translation>
    </message>
    <message>
        <location filename="../widgets/launchoptions.cpp" line="53"/>
        <source>quantscope: give at most one path</source>
        <translation>quantscope: höchstens einen Pfad angeben</translation>
    </message>
    <message>
        <location filename="../widgets/launchoptions.cpp" line="71"/>
        <source>quantscope: unknown theme &apos;%1&apos;</source>
        <translation>quantscope: unbekanntes Farbschema „%1“</translation>
    </message>
    <message>
        <location filename="../widgets/launchoptions.cpp" line="88"/>
        <source>quantscope: no view &apos;%1&apos; (views: %2)</source>
        <translation>quantscope: keine Ansicht „%1“ (Ansichten: %2)</translation>
    </message>
    <message>
        <location filename="../app/gui/main.cpp" line="114"/>
        <source>quantscope: background work still running; the screenshot shows it in progress</source>
        <translation>quantscope: Hintergrundarbeit läuft noch; der Screenshot zeigt sie im Gange</translation>
    </message>
    <message>
        <location filename="../widgets/launchoptions.cpp" line="40"/>
        <source>Compare the checkpoint with checkpoint B (the Diff view).</source>
        <translation>Den Checkpoint mit Checkpoint B vergleichen (die Ansicht Vergleich).</translation>
    </message>
    <message>
        <source>Show the view NAME: %1.</source>
        <translation>Die Ansicht NAME zeigen: %1.</translation>
    </message>
    <message>
        <source>quantscope: %1 has no weight &apos;%2&apos;</source>
        <translation>quantscope: %1 hat kein Gewicht „%2“</translation>
    </message>
    <message>
        <source>Open the importance matrix FILE (llama-imatrix output) in the Recipe view.</source>
        <translation>Die Wichtigkeitsmatrix FILE (Ausgabe von llama-imatrix) in der Rezeptansicht öffnen.</translation>
    </message>
    <message>
        <source>Open the demo at step N (1-%1) of the guide&apos;s walk for a learner.</source>
        <translation>Den Demo-Checkpoint bei Schritt N (1-%1) des Rundgangs für Lernende im Leitfaden öffnen.</translation>
    </message>
    <message>
        <source>quantscope: --walk takes a step from 1 to %1</source>
        <translation>quantscope: --walk erwartet einen Schritt von 1 bis %1</translation>
    </message>
    <message>
        <source>quantscope: --walk opens the demo at its own view and weight</source>
        <translation>quantscope: --walk öffnet den Demo-Checkpoint bei eigener Ansicht und eigenem Gewicht</translation>
    </message>
    <message>
        <source>Show the Bit map&apos;s MODE: bits (as stored), bytes (hex) or matrix (logical).</source>
        <translation>Die Bitkarte im MODUS zeigen: bits (wie gespeichert), bytes (hex) oder matrix (logisch).</translation>
    </message>
    <message>
        <source>Render the window (1600x1000, or --size) to FILE (PNG) and exit.</source>
        <translation>Das Fenster (1600x1000 oder --size) als DATEI (PNG) speichern und beenden.</translation>
    </message>
    <message>
        <source>Make the main window WxH pixels (e.g. 1280x720), before --screenshot or --walk.</source>
        <translation>Das Hauptfenster WxH Pixel groß machen (Breite x Höhe, z. B. 1280x720), vor --screenshot oder --walk.</translation>
    </message>
    <message>
        <source>quantscope: unknown Bit map mode &apos;%1&apos; (bits, bytes, matrix)</source>
        <translation>quantscope: unbekannter Modus der Bitkarte „%1“ (bits, bytes, matrix)</translation>
    </message>
    <message>
        <source>quantscope: --size takes WxH from 640x480 to 8192x8192, not &apos;%1&apos;</source>
        <translation>quantscope: --size nimmt WxH (Breite x Höhe) von 640x480 bis 8192x8192, nicht „%1“</translation>
    </message>
</context>
<context>
    <name>qsw::AnalysisView</name>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source> · %1 (%2)</source>
        <translation> · %1 (%2)</translation>
    </message>
    <message>
        <location filename="../widgets/views/analysisview.cpp" line="30"/>
        <source>PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf)</source>
        <translation>PNG-Bild (*.png);;SVG-Bild (*.svg);;PDF-Dokument (*.pdf)</translation>
    </message>
    <message>
        <location filename="../widgets/views/analysisview.cpp" line="54"/>
        <source>%1: cannot encode PNG</source>
        <translation>%1: PNG kann nicht kodiert werden</translation>
    </message>
    <message>
        <location filename="../widgets/views/analysisview.cpp" line="64"/>
        <source>Exported from Quantscope</source>
        <translation>Aus Quantscope exportiert</translation>
    </message>
    <message>
        <location filename="../widgets/views/analysisview.cpp" line="80"/>
        <source>%1: unknown export format &quot;%2&quot; (use .png, .svg or .pdf)</source>
        <translation>%1: unbekanntes Exportformat „%2“ (.png, .svg oder .pdf verwenden)</translation>
    </message>
    <message>
        <source>%1: not written: %2</source>
        <translation>%1: nicht geschrieben: %2</translation>
    </message>
</context>
<context>
    <name>qsw::BitMapCanvas</name>
    <message>
        <source>Offset</source>
        <translation>Offset</translation>
    </message>
    <message>
        <source>ASCII</source>
        <translation>ASCII</translation>
    </message>
    <message>
        <source>Fields</source>
        <translation>Felder</translation>
    </message>
    <message>
        <source>Copy as Hex</source>
        <translation>Als Hex kopieren</translation>
    </message>
    <message>
        <source>Copy as Hex-Editor Lines</source>
        <translation>Als Hex-Editor-Zeilen kopieren</translation>
    </message>
    <message>
        <source>slot %1</source>
        <translation>Slot %1</translation>
    </message>
    <message>
        <source>Legend</source>
        <translation>Legende</translation>
    </message>
    <message>
        <source>Code</source>
        <translation>Code</translation>
    </message>
    <message>
        <source>%1 (largest code, %2 bits)</source>
        <translation>%1 (größter Code, %2 Bit)</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapcanvas.cpp" line="138"/>
        <location filename="../widgets/views/bitmapcanvas.cpp" line="567"/>
        <source>word  ·  bit</source>
        <translation>Wort  ·  Bit</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapcanvas.cpp" line="138"/>
        <location filename="../widgets/views/bitmapcanvas.cpp" line="560"/>
        <source>row %1</source>
        <translation>Zeile %1</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapcanvas.cpp" line="555"/>
        <source>block %1</source>
        <translation>Block %1</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapcanvas.cpp" line="567"/>
        <source>out \ in</source>
        <translation>aus \ ein</translation>
    </message>
</context>
<context>
    <name>qsw::BitMapView</name>
    <message>
        <source> · stored bytes, 16 a row: file offsets 0x%1–0x%2 (bytes %3–%4 of %5)</source>
        <translation> · gespeicherte Bytes, 16 pro Zeile: Datei-Offsets 0x%1–0x%2 (Bytes %3–%4 von %5)</translation>
    </message>
    <message>
        <source>Bytes (hex)</source>
        <translation>Bytes (hex)</translation>
    </message>
    <message>
        <source>Stored words bit by bit, the stored bytes as a hex editor shows them, or the logical [out, in] matrix as a heatmap of codes</source>
        <translation>Gespeicherte Wörter Bit für Bit, die gespeicherten Bytes wie in einem Hex-Editor oder die logische [out, in]-Matrix als Heatmap der Codes</translation>
    </message>
    <message>
        <source>File offset</source>
        <translation>Datei-Offset</translation>
    </message>
    <message>
        <source>The code tensor&apos;s bytes as a hex editor shows them: file offsets, 16 bytes a row, their characters, and the block fields or a word&apos;s slots tinted behind the hex (the legend below names them; the Fields column names a row&apos;s fields). Click a byte to select its element, drag to select bytes; Ctrl+C copies the selection as hex, Ctrl+Shift+C as hex-editor lines. The selection&apos;s row is shown in binary below.</source>
        <translation>Die Bytes des Code-Tensors wie in einem Hex-Editor: Datei-Offsets, 16 Bytes pro Zeile, ihre Zeichen und die Blockfelder oder die Slots eines Worts farbig hinter den Hex-Ziffern (die Legende unten benennt sie; die Spalte „Felder“ nennt die Felder einer Zeile). Ein Klick auf ein Byte wählt sein Element aus, Ziehen wählt Bytes aus; Strg+C kopiert die Auswahl als Hex, Strg+Umschalt+C als Hex-Editor-Zeilen. Die Zeile der Auswahl steht unten in Binärdarstellung.</translation>
    </message>
    <message>
        <source>The logical [out, in] matrix, one cell per element, coloured by its stored code on the scale below. Hover a cell for its code and value; click to select it.</source>
        <translation>Die logische [out, in]-Matrix, eine Zelle pro Element, gefärbt nach ihrem gespeicherten Code auf der Skala unten. Zeigen Sie auf eine Zelle für Code und Wert; klicken Sie, um sie auszuwählen.</translation>
    </message>
    <message>
        <source>Fetching %1 of %2 from the server…</source>
        <translation>Lade %1 von %2 vom Server…</translation>
    </message>
    <message>
        <source>Fetching %1</source>
        <translation>Lade %1</translation>
    </message>
    <message>
        <source>No weight with a layout is shown.</source>
        <translation>Es wird kein Gewicht mit Layout angezeigt.</translation>
    </message>
    <message>
        <source>%1 is not drawn: %2</source>
        <translation>%1 wird nicht gezeichnet: %2</translation>
    </message>
    <message>
        <source>Row %1 is outside 0–%2.</source>
        <translation>Zeile %1 liegt außerhalb von 0–%2.</translation>
    </message>
    <message>
        <source>Column %1 is outside 0–%2.</source>
        <translation>Spalte %1 liegt außerhalb von 0–%2.</translation>
    </message>
    <message>
        <source>Word %1 is past the last word, %2.</source>
        <translation>Wort %1 liegt hinter dem letzten Wort, %2.</translation>
    </message>
    <message>
        <source>“%1” is neither a word index (“1234”) nor an element (“row, col”).</source>
        <translation>„%1“ ist weder ein Wortindex („1234“) noch ein Element („Zeile, Spalte“).</translation>
    </message>
    <message>
        <source>Word %1 (hex)</source>
        <translation>Wort %1 (hex)</translation>
    </message>
    <message>
        <source>Word %1 (binary)</source>
        <translation>Wort %1 (binär)</translation>
    </message>
    <message>
        <source>Block</source>
        <translation>Block</translation>
    </message>
    <message>
        <source>Block %1, from element (%2, %3)</source>
        <translation>Block %1, ab Element (%2, %3)</translation>
    </message>
    <message>
        <source>Block scale %1</source>
        <translation>Blockskala %1</translation>
    </message>
    <message>
        <source>Block min %1</source>
        <translation>Blockminimum %1</translation>
    </message>
    <message>
        <source>Block sum %1</source>
        <translation>Blocksumme %1</translation>
    </message>
    <message>
        <source>Absmax</source>
        <translation>Absmax</translation>
    </message>
    <message>
        <source>Absmax code</source>
        <translation>Absmax-Code</translation>
    </message>
    <message>
        <source>Absmax scale %1 (second level)</source>
        <translation>Absmax-Skala %1 (zweite Stufe)</translation>
    </message>
    <message>
        <source>Absmax offset</source>
        <translation>Absmax-Versatz</translation>
    </message>
    <message>
        <source>Sub-block %1 scale</source>
        <translation>Skala von Unterblock %1</translation>
    </message>
    <message>
        <source>Sub-block %1 min</source>
        <translation>Minimum von Unterblock %1</translation>
    </message>
    <message>
        <source>Grid index (byte %1)</source>
        <translation>Gitterindex (Byte %1)</translation>
    </message>
    <message>
        <source>Sign index (bit %1)</source>
        <translation>Vorzeichenindex (Bit %1)</translation>
    </message>
    <message>
        <source>Sign bit</source>
        <translation>Vorzeichenbit</translation>
    </message>
    <message>
        <source>Delta bit</source>
        <translation>Delta-Bit</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="47"/>
        <source>As stored</source>
        <translation>Wie gespeichert</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="48"/>
        <source>Logical matrix</source>
        <translation>Logische Matrix</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="52"/>
        <source> px</source>
        <translation> px</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="53"/>
        <source>Cell size (Ctrl+wheel)</source>
        <translation>Zellengröße (Strg+Mausrad)</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="54"/>
        <source>Go to word or row, col</source>
        <translation>Gehe zu Wort oder Zeile, Spalte</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="61"/>
        <source>Order:</source>
        <translation>Reihenfolge:</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="64"/>
        <source>Cell:</source>
        <translation>Zelle:</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="166"/>
        <source>Select a weight in the tensor browser.</source>
        <translation>Wählen Sie ein Gewicht im Tensor-Browser.</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="168"/>
        <source>No layout spec for %1: its bits cannot be drawn yet.</source>
        <translation>Keine Layout-Spezifikation für %1: seine Bits können noch nicht gezeichnet werden.</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="173"/>
        <source>Cannot map the words of %1: %2</source>
        <translation>Die Wörter von %1 lassen sich nicht zuordnen: %2</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="187"/>
        <source>%1 × %2</source>
        <translation>%1 × %2</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="188"/>
        <source>%1 · %2-bit words · %3 words · [%4, %5] · repeats every %6</source>
        <translation>%1 · %2-Bit-Wörter · %3 Wörter · [%4, %5] · wiederholt sich alle %6</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="272"/>
        <location filename="../widgets/views/bitmapview.cpp" line="307"/>
        <source>Word</source>
        <translation>Wort</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="273"/>
        <source>Bit</source>
        <translation>Bit</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="274"/>
        <source>Byte offset</source>
        <translation>Byte-Offset</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="276"/>
        <source>Block field</source>
        <translation>Blockfeld</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="278"/>
        <source>Holds</source>
        <translation>Enthält</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="278"/>
        <source>padding (no element)</source>
        <translation>Auffüllung (kein Element)</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="288"/>
        <source>Hover a bit to see which element it belongs to; click to select it. Hue: the element&apos;s place in the layout&apos;s repeating tile. Lightness: its code (dark = low). A notch marks a code split over two words. Arrow keys move the selection; Ctrl+wheel zooms; Ctrl+C copies the selected row as hex with its file offset.</source>
        <translation>Zeigen Sie auf ein Bit, um zu sehen, zu welchem Element es gehört; klicken Sie, um es auszuwählen. Farbton: die Stelle des Elements in der sich wiederholenden Kachel des Layouts. Helligkeit: sein Code (dunkel = niedrig). Eine Kerbe markiert einen auf zwei Wörter verteilten Code. Pfeiltasten bewegen die Auswahl; Strg+Mausrad zoomt; Strg+C kopiert die Zeile der Auswahl als Hex mit ihrem Dateiversatz.</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="303"/>
        <source>Element (%1, %2)</source>
        <translation>Element (%1, %2)</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="304"/>
        <source>Row (out)</source>
        <translation>Zeile (aus)</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="305"/>
        <source>Column (in)</source>
        <translation>Spalte (ein)</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="307"/>
        <source>Word (piece %1)</source>
        <translation>Wort (Teil %1)</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="308"/>
        <source>%1, bits %2</source>
        <translation>%1, Bits %2</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="310"/>
        <source>Split</source>
        <translation>Geteilt</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="310"/>
        <source>%1 pieces, low bits first</source>
        <translation>%1 Teile, niedrige Bits zuerst</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="312"/>
        <source>Slot</source>
        <translation>Slot</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="319"/>
        <location filename="../widgets/views/bitmapview.cpp" line="330"/>
        <source>Code</source>
        <translation>Code</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="320"/>
        <source>Group</source>
        <translation>Gruppe</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="322"/>
        <source>Scale</source>
        <translation>Skala</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="324"/>
        <source>Bias</source>
        <translation>Bias</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="325"/>
        <source>Block min</source>
        <translation>Blockminimum</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="326"/>
        <source>Zero</source>
        <translation>Nullpunkt</translation>
    </message>
    <message>
        <location filename="../widgets/views/bitmapview.cpp" line="343"/>
        <source>Value</source>
        <translation>Wert</translation>
    </message>
    <message>
        <source> · stored words, most significant bit left: words %1–%2 of %3</source>
        <translation> · gespeicherte Wörter, höchstwertiges Bit links: Wörter %1–%2 von %3</translation>
    </message>
    <message>
        <source> · logical matrix, one code per cell: rows %1–%2 of %3, every column</source>
        <translation> · logische Matrix, ein Code pro Zelle: Zeilen %1–%2 von %3, alle Spalten</translation>
    </message>
    <message numerus="yes">
        <source>%Ln element(s)</source>
        <translation>
            <numerusform>%Ln Element</numerusform>
            <numerusform>%Ln Elemente</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>qsw::BudgetChart</name>
    <message>
        <location filename="../widgets/figures/budgetchart.cpp" line="93"/>
        <location filename="../widgets/figures/budgetchart.cpp" line="156"/>
        <source>float</source>
        <translation>Gleitkomma</translation>
    </message>
    <message>
        <location filename="../widgets/figures/budgetchart.cpp" line="165"/>
        <source>bits per weight
(every scale, zero and index counted)</source>
        <translation>Bits pro Gewicht
(jede Skala, jeder Nullpunkt und Index gezählt)</translation>
    </message>
    <message>
        <location filename="../widgets/figures/budgetchart.cpp" line="174"/>
        <source>fits</source>
        <translation>passt</translation>
    </message>
    <message>
        <location filename="../widgets/figures/budgetchart.cpp" line="174"/>
        <source>memory</source>
        <translation>Speicher</translation>
    </message>
    <message>
        <location filename="../widgets/figures/budgetchart.cpp" line="175"/>
        <source>does not fit</source>
        <translation>passt nicht</translation>
    </message>
    <message>
        <location filename="../widgets/figures/budgetchart.cpp" line="73"/>
        <source>TiB</source>
        <translation>TiB</translation>
    </message>
    <message>
        <location filename="../widgets/figures/budgetchart.cpp" line="75"/>
        <source>GiB</source>
        <translation>GiB</translation>
    </message>
    <message>
        <location filename="../widgets/figures/budgetchart.cpp" line="77"/>
        <source>MiB</source>
        <translation>MiB</translation>
    </message>
    <message>
        <location filename="../widgets/figures/budgetchart.cpp" line="78"/>
        <source>KiB</source>
        <translation>KiB</translation>
    </message>
    <message>
        <location filename="../widgets/figures/budgetchart.cpp" line="87"/>
        <source>%L1 %2</source>
        <translation>%L1 %2</translation>
    </message>
    <message>
        <location filename="../widgets/figures/budgetchart.cpp" line="153"/>
        <source>codebook (NF4, FP4, IQ)</source>
        <translation>Codebuch (NF4, FP4, IQ)</translation>
    </message>
    <message>
        <location filename="../widgets/figures/budgetchart.cpp" line="154"/>
        <source>GGUF blocks</source>
        <translation>GGUF-Blöcke</translation>
    </message>
    <message>
        <location filename="../widgets/figures/budgetchart.cpp" line="155"/>
        <source>integer codes + scales</source>
        <translation>Ganzzahl-Codes + Skalen</translation>
    </message>
    <message>
        <location filename="../widgets/figures/budgetchart.cpp" line="189"/>
        <source>
budget %1 off scale →</source>
        <translation>
Budget %1 außerhalb der Skala →</translation>
    </message>
    <message>
        <location filename="../widgets/figures/budgetchart.cpp" line="196"/>
        <source>budget %1</source>
        <translation>Budget %1</translation>
    </message>
    <message>
        <location filename="../widgets/figures/budgetchart.cpp" line="216"/>
        <source>%L1 bpw</source>
        <translation>%L1 bpw</translation>
    </message>
    <message>
        <location filename="../widgets/figures/budgetchart.cpp" line="175"/>
        <source>weights only</source>
        <translation>nur Gewichte</translation>
    </message>
    <message>
        <location filename="../widgets/figures/budgetchart.cpp" line="176"/>
        <source>%1 for %2 parameters
(%3)</source>
        <translation>%1 für %2 Parameter
(%3)</translation>
    </message>
    <message>
        <location filename="../widgets/figures/budgetchart.cpp" line="177"/>
        <source>%1
(%2)</source>
        <translation>%1
(%2)</translation>
    </message>
    <message>
        <location filename="../widgets/figures/budgetchart.cpp" line="264"/>
        <source>weights</source>
        <translation>Gewichte</translation>
    </message>
    <message>
        <location filename="../widgets/figures/budgetchart.cpp" line="265"/>
        <source>KV cache and state</source>
        <translation>KV-Cache und Zustand</translation>
    </message>
    <message>
        <location filename="../widgets/figures/budgetchart.cpp" line="266"/>
        <source>output and compute buffers (compute estimated)</source>
        <translation>Ausgabe- und Rechenpuffer (Rechenpuffer geschätzt)</translation>
    </message>
    <message>
        <location filename="../widgets/figures/budgetchart.cpp" line="277"/>
        <source>%1 per device at %2 tokens</source>
        <translation>%1 je Gerät bei %2 Token</translation>
    </message>
    <message>
        <location filename="../work/wt-kv-budget/widgets/figures/budgetchart.cpp" line="284"/>
        <source>; memory %1 off scale →</source>
        <translation>; Speicher %1 außerhalb der Skala →</translation>
    </message>
</context>
<context>
    <name>qsw::BudgetView</name>
    <message>
        <source>&lt;br&gt;Note: %1</source>
        <translation>&lt;br&gt;Hinweis: %1</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="64"/>
        <source>Parameter count: a preset or a number such as 8B, 1.5B, 350M or 70e9</source>
        <translation>Parameterzahl: eine Vorgabe oder eine Zahl wie 8B, 1.5B, 350M oder 70e9</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="67"/>
        <source>Common formats</source>
        <translation>Gängige Formate</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="68"/>
        <source>All formats</source>
        <translation>Alle Formate</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="74"/>
        <source> GiB</source>
        <translation> GiB</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="75"/>
        <source>Your RAM or VRAM: the budget line</source>
        <translation>Ihr RAM oder VRAM: die Budgetlinie</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="80"/>
        <source>Model size:</source>
        <translation>Modellgröße:</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="84"/>
        <source>Memory budget:</source>
        <translation>Speicherbudget:</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="87"/>
        <source>Formats:</source>
        <translation>Formate:</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="200"/>
        <source>%1 (this checkpoint)</source>
        <translation>%1 (dieser Checkpoint)</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="215"/>
        <source>&lt;span style=&apos;color:%1&apos;&gt;not a parameter count&lt;/span&gt;</source>
        <translation>&lt;span style=&apos;color:%1&apos;&gt;keine Parameterzahl&lt;/span&gt;</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="244"/>
        <source>this checkpoint</source>
        <translation>dieser Checkpoint</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="263"/>
        <source> Bits per weight are amortised over a 4096 × 4096 layer; memory counts weights only (no KV cache or activations).</source>
        <translation> Bits pro Gewicht sind über eine 4096 × 4096-Schicht gerechnet; der Speicher zählt nur Gewichte (kein KV-Cache, keine Aktivierungen).</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="285"/>
        <source>
fits the budget</source>
        <translation>
passt ins Budget</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="285"/>
        <source>
does not fit the budget</source>
        <translation>
passt nicht ins Budget</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="254"/>
        <source>%1 parameters in %2: %3 of %4 formats fit.</source>
        <translation>%1 Parameter in %2: %3 von %4 Formaten passen.</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="259"/>
        <source> The most precise that fits: &lt;b&gt;%1&lt;/b&gt; (%L2 bpw, %3).</source>
        <translation> Das genaueste, das passt: &lt;b&gt;%1&lt;/b&gt; (%L2 bpw, %3).</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="279"/>
        <source>%1
%L2 bits per weight: %3
%4 (%L5 GB)</source>
        <translation>%1
%L2 Bits pro Gewicht: %3
%4 (%L5 GB)</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="109"/>
        <source>The architecture the KV cache and buffers are computed for: the open checkpoint&apos;s or a published one</source>
        <translation>Die Architektur, für die KV-Cache und Puffer berechnet werden: die des geöffneten Checkpoints oder eine veröffentlichte</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="110"/>
        <source>weights only</source>
        <translation>nur Gewichte</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="114"/>
        <source>The format the weights of the device bars are priced in</source>
        <translation>Das Format, in dem die Gewichte der Gerätebalken gerechnet werden</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="121"/>
        <source>Context length (llama.cpp -c), on a log scale</source>
        <translation>Kontextlänge (llama.cpp -c), logarithmisch</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="125"/>
        <source> tokens</source>
        <translation> Token</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="126"/>
        <source>Context length (llama.cpp -c), shared by the sequences</source>
        <translation>Kontextlänge (llama.cpp -c), von den Sequenzen geteilt</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="132"/>
        <source>K cache type (llama.cpp -ctk)</source>
        <translation>Typ des K-Caches (llama.cpp -ctk)</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="133"/>
        <source>V cache type (llama.cpp -ctv)</source>
        <translation>Typ des V-Caches (llama.cpp -ctv)</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="138"/>
        <source>Parallel sequences (llama.cpp -np)</source>
        <translation>Parallele Sequenzen (llama.cpp -np)</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="141"/>
        <source>Layers on the GPU (llama.cpp -ngl): the last blocks; blocks + 1 adds the output layer</source>
        <translation>Schichten auf der GPU (llama.cpp -ngl): die letzten Blöcke; Blöcke + 1 nimmt die Ausgabeschicht dazu</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="146"/>
        <source>no GPU</source>
        <translation>keine GPU</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="147"/>
        <source>GPU memory; the memory budget above is the system&apos;s RAM</source>
        <translation>GPU-Speicher; das Speicherbudget oben ist dann der Arbeitsspeicher des Systems</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="148"/>
        <source>full-size SWA</source>
        <translation>SWA in voller Größe</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="149"/>
        <source>Size sliding-window layers like the others (llama.cpp --swa-full; the library default, not the tools&apos;)</source>
        <translation>Schichten mit gleitendem Fenster wie die übrigen bemessen (llama.cpp --swa-full; Vorgabe der Bibliothek, nicht der Werkzeuge)</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="152"/>
        <source>Running:</source>
        <translation>Ausführen:</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="154"/>
        <source>weights as</source>
        <translation>Gewichte als</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="157"/>
        <source>Context:</source>
        <translation>Kontext:</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="161"/>
        <source>K/V cache:</source>
        <translation>K/V-Cache:</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="166"/>
        <source>Sequences:</source>
        <translation>Sequenzen:</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="169"/>
        <source>GPU layers:</source>
        <translation>GPU-Schichten:</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="172"/>
        <source>GPU memory:</source>
        <translation>GPU-Speicher:</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="366"/>
        <source>this checkpoint (%1)</source>
        <translation>dieser Checkpoint (%1)</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="373"/>
        <source>stored</source>
        <translation>gespeichert</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="453"/>
        <source>Choose an architecture to add the KV cache and buffers of running the model.</source>
        <translation>Eine Architektur wählen, um KV-Cache und Puffer für das Ausführen des Modells hinzuzunehmen.</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="454"/>
        <source>Running this checkpoint: %1</source>
        <translation>Diesen Checkpoint ausführen: %1</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="492"/>
        <source>&lt;span style=&apos;color:%1&apos;&gt;%2&lt;/span&gt;</source>
        <translation>&lt;span style=&apos;color:%1&apos;&gt;%2&lt;/span&gt;</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="497"/>
        <source>At %L1 tokens (%L2 cells): KV cache &lt;b&gt;%3&lt;/b&gt; (%L4 bytes a token)</source>
        <translation>Bei %L1 Token (%L2 Zellen): KV-Cache &lt;b&gt;%3&lt;/b&gt; (%L4 Bytes je Token)</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="503"/>
        <source>, recurrent state %1</source>
        <translation>, rekurrenter Zustand %1</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="504"/>
        <source>, output buffer %1, compute buffer about %2 (an estimate); total &lt;b&gt;%3&lt;/b&gt;.</source>
        <translation>, Ausgabepuffer %1, Rechenpuffer etwa %2 (geschätzt); gesamt &lt;b&gt;%3&lt;/b&gt;.</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="508"/>
        <source> Largest context that fits: &lt;b&gt;%L1 tokens&lt;/b&gt;.</source>
        <translation> Größter Kontext, der passt: &lt;b&gt;%L1 Token&lt;/b&gt;.</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="510"/>
        <source> &lt;span style=&apos;color:%1&apos;&gt;Not even %L2 tokens fit.&lt;/span&gt;</source>
        <translation> &lt;span style=&apos;color:%1&apos;&gt;Nicht einmal %L2 Token passen.&lt;/span&gt;</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="562"/>
        <source>weights + KV cache + buffers at %L1 tokens</source>
        <translation>Gewichte + KV-Cache + Puffer bei %L1 Token</translation>
    </message>
    <message>
        <location filename="../widgets/views/budgetview.cpp" line="582"/>
        <source> Bits per weight are amortised over a 4096 × 4096 layer; memory counts the weights, the KV cache and the buffers at the chosen context, against RAM plus GPU memory.</source>
        <translation> Bits pro Gewicht sind über eine 4096 × 4096-Schicht gerechnet; der Speicher zählt Gewichte, KV-Cache und Puffer beim gewählten Kontext, gegen Arbeitsspeicher plus GPU-Speicher.</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source> · %1 parameters, memory budget %2</source>
        <translation> · %1 Parameter, Speicherbudget %2</translation>
    </message>
    <message>
        <source> · running %1 at %2 tokens</source>
        <translation> · %1 läuft mit %2 Tokens</translation>
    </message>
</context>
<context>
    <name>qsw::DataFigures</name>
    <message>
        <location filename="../widgets/report/datafigures.cpp" line="44"/>
        <source>scale</source>
        <translation>Skala</translation>
    </message>
    <message>
        <source>max |scale| per cell</source>
        <translation>max. |Skala| je Zelle</translation>
    </message>
</context>
<context>
    <name>qsw::DiffListModel</name>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="159"/>
        <source>%1 vs %2</source>
        <translation>%1 gegen %2</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="220"/>
        <source>shape mismatch %1</source>
        <translation>Formen verschieden %1</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="221"/>
        <source>skipped: %1</source>
        <translation>übersprungen: %1</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="222"/>
        <source>only in A</source>
        <translation>nur in A</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="223"/>
        <source>only in B</source>
        <translation>nur in B</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="226"/>
        <source>%1 non-finite</source>
        <translation>%1 nicht endlich</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="228"/>
        <source>identical</source>
        <translation>identisch</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="229"/>
        <source>over tolerance</source>
        <translation>über der Toleranz</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="229"/>
        <source>within tolerance</source>
        <translation>innerhalb der Toleranz</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="262"/>
        <source>%1 (%2) vs %3 (%4), shape %5
mean |a − b| %6, relative error %7, cosine %8
%9 of %10 elements differ</source>
        <translation>%1 (%2) gegen %3 (%4), Form %5
mittlere |a − b| %6, relativer Fehler %7, Kosinus %8
%9 von %10 Elementen verschieden</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="267"/>
        <source>largest difference at row %1, column %2</source>
        <translation>größte Differenz in Zeile %1, Spalte %2</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="282"/>
        <source>Weight in A</source>
        <translation>Gewicht in A</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="283"/>
        <source>Weight in B</source>
        <translation>Gewicht in B</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="284"/>
        <source>RMSE</source>
        <translation>RMSE</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="285"/>
        <source>max |a − b|</source>
        <translation>max. |a − b|</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="286"/>
        <source>SQNR dB</source>
        <translation>SQNR dB</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="287"/>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>largest difference at row %1, column %2 of A (row %3 of B)</source>
        <translation>größte Differenz in Zeile %1, Spalte %2 von A (Zeile %3 von B)</translation>
    </message>
</context>
<context>
    <name>qsw::DiffView</name>
    <message>
        <source> · against B = %1</source>
        <translation> · gegenüber B = %1</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="299"/>
        <source>Open B…</source>
        <translation>B öffnen…</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="300"/>
        <source>Open a second checkpoint (file or folder) to compare with this one; or drop it on this view</source>
        <translation>Einen zweiten Checkpoint (Datei oder Ordner) zum Vergleich öffnen; oder ihn auf diese Ansicht ziehen</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="307"/>
        <source>tolerance: </source>
        <translation>Toleranz: </translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="308"/>
        <source>A pair is over its tolerance when its max |a − b| exceeds it (or a difference is not finite). Automatic: one code step, 2 max|b| / (2^bits − 1), where a quantized weight meets a float one, else 0, as quantscope-cli diff judges without --tolerance</source>
        <translation>Ein Paar liegt über seiner Toleranz, wenn sein max. |a − b| sie übersteigt (oder eine Differenz nicht endlich ist). Automatisch: eine Codestufe, 2 max|b| / (2^Bits − 1), wo ein quantisiertes Gewicht auf ein Float-Gewicht trifft, sonst 0, wie quantscope-cli diff ohne --tolerance urteilt</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="309"/>
        <source>Compare again</source>
        <translation>Erneut vergleichen</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="345"/>
        <source>input column</source>
        <translation>Eingabespalte</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="346"/>
        <source>output row</source>
        <translation>Ausgabezeile</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="347"/>
        <source>|a − b| (max per cell)</source>
        <translation>|a − b| (Maximum je Zelle)</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="425"/>
        <source>Comparison cancelled. Press “Compare again” to restart it.</source>
        <translation>Vergleich abgebrochen. „Erneut vergleichen“ startet ihn neu.</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="429"/>
        <source>Open a second checkpoint (B) to compare it with this one weight by weight: “Open B…”, drop it here, or start with quantscope A --diff B.</source>
        <translation>Öffnen Sie einen zweiten Checkpoint (B), um ihn Gewicht für Gewicht mit diesem zu vergleichen: „B öffnen…“, hierher ziehen oder mit quantscope A --diff B starten.</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="456"/>
        <source>Open checkpoint B</source>
        <translation>Checkpoint B öffnen</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="457"/>
        <source>Checkpoints (*.gguf *.safetensors);;All files (*)</source>
        <translation>Checkpoints (*.gguf *.safetensors);;Alle Dateien (*)</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="485"/>
        <source>Open a checkpoint (A) first.</source>
        <translation>Öffnen Sie zuerst einen Checkpoint (A).</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="489"/>
        <source>Pairing the weights of %1…</source>
        <translation>Ordne die Gewichte von %1 zu…</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="490"/>
        <source>Opening %1…</source>
        <translation>Öffne %1…</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="493"/>
        <source>Opening %1 as B</source>
        <translation>Öffne %1 als B</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="518"/>
        <source>B: &lt;b&gt;%1&lt;/b&gt;</source>
        <translation>B: &lt;b&gt;%1&lt;/b&gt;</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="538"/>
        <source>Comparing every weight of A with its match in B…</source>
        <translation>Vergleiche jedes Gewicht von A mit seinem Gegenstück in B…</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="542"/>
        <source>Comparing %1 with %2</source>
        <translation>Vergleiche %1 mit %2</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="610"/>
        <source>%1 · %2: the zero points mix GPTQ v1 (z − 1) and v2 (z) conventions, so some groups may read one zero step off and the figures of this weight are in doubt.</source>
        <translation>%1 · %2: Die Nullpunkte mischen die GPTQ-Konventionen v1 (z − 1) und v2 (z); manche Gruppen werden daher womöglich um eine Nullpunktstufe versetzt gelesen, und die Werte dieses Gewichts sind fraglich.</translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/views/diffview.cpp" line="618"/>
        <source>&lt;b&gt;%n warning(s)&lt;/b&gt; about the compared weights:</source>
        <translation>
            <numerusform>&lt;b&gt;%n Warnung&lt;/b&gt; zu den verglichenen Gewichten:</numerusform>
            <numerusform>&lt;b&gt;%n Warnungen&lt;/b&gt; zu den verglichenen Gewichten:</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="672"/>
        <source>A: %1</source>
        <translation>A: %1</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="672"/>
        <source>A</source>
        <translation>A</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="673"/>
        <source>B: %1</source>
        <translation>B: %1</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="673"/>
        <source>B: not open</source>
        <translation>B: nicht geöffnet</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="686"/>
        <source>Open a checkpoint B to see the difference of each weight as a heatmap.</source>
        <translation>Öffnen Sie einen Checkpoint B, um die Differenz jedes Gewichts als Heatmap zu sehen.</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="688"/>
        <source>Select a weight.</source>
        <translation>Wählen Sie ein Gewicht.</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="690"/>
        <source>Pairing the weights…</source>
        <translation>Ordne die Gewichte zu…</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="692"/>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="694"/>
        <source>%1 has no match in B.</source>
        <translation>%1 hat kein Gegenstück in B.</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="703"/>
        <source>Computing the difference of %1…</source>
        <translation>Berechne die Differenz von %1…</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="705"/>
        <source>Difference map of %1</source>
        <translation>Differenzkarte von %1</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="799"/>
        <source>&lt;b&gt;%1&lt;/b&gt;: A and B are identical.</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;: A und B sind identisch.</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="800"/>
        <source>&lt;b&gt;%1&lt;/b&gt;: |a − b| per element, max %2.</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;: |a − b| je Element, Maximum %2.</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="803"/>
        <source> Click selects the element.</source>
        <translation> Ein Klick wählt das Element aus.</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="864"/>
        <source>%1 has no match in A.</source>
        <translation>%1 hat kein Gegenstück in A.</translation>
    </message>
    <message>
        <location filename="../widgets/views/diffview.cpp" line="880"/>
        <source>%1 is only in B.</source>
        <translation>%1 ist nur in B.</translation>
    </message>
    <message>
        <source>Close B</source>
        <translation>B schließen</translation>
    </message>
    <message>
        <source>Close checkpoint B and unmap its files</source>
        <translation>Checkpoint B schließen und seine Dateien freigeben</translation>
    </message>
    <message>
        <source>row %1, col %2
a %3
b %4
|a − b| %5</source>
        <translation>Zeile %1, Spalte %2
a %3
b %4
|a − b| %5</translation>
    </message>
    <message>
        <source>the Diff view compares nothing yet. %1</source>
        <translation>die Diff-Ansicht vergleicht noch nichts. %1</translation>
    </message>
    <message>
        <source>tolerance: automatic</source>
        <translation>Toleranz: automatisch</translation>
    </message>
    <message numerus="yes">
        <source>%n pair(s) compared</source>
        <translation>
            <numerusform>%n Paar verglichen</numerusform>
            <numerusform>%n Paare verglichen</numerusform>
        </translation>
    </message>
    <message>
        <source>: %1 identical, %2 over the tolerance</source>
        <translation>: %1 identisch, %2 über der Toleranz</translation>
    </message>
    <message numerus="yes">
        <source>%n shape mismatch(es)</source>
        <translation>
            <numerusform>%n mit verschiedener Form</numerusform>
            <numerusform>%n mit verschiedener Form</numerusform>
        </translation>
    </message>
    <message>
        <source> · %1 skipped · %2 only in A · %3 only in B</source>
        <translation> · %1 übersprungen · %2 nur in A · %3 nur in B</translation>
    </message>
    <message>
        <source> Decimated: each cell is the max over %1 × %2.</source>
        <translation> Ausgedünnt: Jede Zelle ist das Maximum über %1 × %2.</translation>
    </message>
    <message numerus="yes">
        <source>%Ln row(s)</source>
        <translation>
            <numerusform>%Ln Zeile</numerusform>
            <numerusform>%Ln Zeilen</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln column(s)</source>
        <translation>
            <numerusform>%Ln Spalte</numerusform>
            <numerusform>%Ln Spalten</numerusform>
        </translation>
    </message>
    <message>
        <source>
cell (%1 × %2): max %3</source>
        <translation>
Zelle (%1 × %2): max. %3</translation>
    </message>
</context>
<context>
    <name>qsw::ErrorHistogram</name>
    <message>
        <location filename="../widgets/figures/errorhistogram.cpp" line="60"/>
        <location filename="../widgets/figures/errorhistogram.cpp" line="63"/>
        <source>elements</source>
        <translation>Elemente</translation>
    </message>
    <message>
        <location filename="../widgets/figures/errorhistogram.cpp" line="62"/>
        <source>signed error (dequantized − reference)</source>
        <translation>vorzeichenbehafteter Fehler (dequantisiert − Referenz)</translation>
    </message>
    <message>
        <location filename="../widgets/figures/errorhistogram.cpp" line="63"/>
        <source>elements (log)</source>
        <translation>Elemente (log)</translation>
    </message>
    <message>
        <location filename="../widgets/figures/errorhistogram.cpp" line="100"/>
        <source>RMSE</source>
        <translation>RMSE</translation>
    </message>
    <message>
        <location filename="../widgets/figures/errorhistogram.cpp" line="104"/>
        <source>max |error|</source>
        <translation>max. |Fehler|</translation>
    </message>
    <message>
        <location filename="../widgets/figures/errorhistogram.cpp" line="105"/>
        <source>group (storage order)</source>
        <translation>Gruppe (Speicherreihenfolge)</translation>
    </message>
    <message>
        <location filename="../widgets/figures/errorhistogram.cpp" line="106"/>
        <source>error</source>
        <translation>Fehler</translation>
    </message>
</context>
<context>
    <name>qsw::ErrorView</name>
    <message>
        <source>bits: </source>
        <translation>Bits: </translation>
    </message>
    <message>
        <source>Code width of the affine target</source>
        <translation>Codebreite des affinen Ziels</translation>
    </message>
    <message>
        <source>group: row</source>
        <translation>Gruppe: Zeile</translation>
    </message>
    <message>
        <source>group: </source>
        <translation>Gruppe: </translation>
    </message>
    <message>
        <source>Columns per group of the affine target (row: one group per row)</source>
        <translation>Spalten je Gruppe des affinen Ziels (Zeile: eine Gruppe je Zeile)</translation>
    </message>
    <message>
        <source>Range</source>
        <translation>Bereich</translation>
    </message>
    <message>
        <source>Bin the signed error over [low, high] instead of ±max|error| (the CLI&apos;s --range); errors outside are counted below and above</source>
        <translation>Den vorzeichenbehafteten Fehler über [unten, oben] statt ±max|Fehler| einteilen (--range der CLI); Fehler außerhalb werden darunter und darüber gezählt</translation>
    </message>
    <message>
        <source>Click a group to select its first element</source>
        <translation>Eine Gruppe anklicken wählt ihr erstes Element</translation>
    </message>
    <message>
        <source>Wheel: zoom the error axis · drag: pan · double-click: the whole range</source>
        <translation>Mausrad: Fehlerachse zoomen · Ziehen: verschieben · Doppelklick: ganzer Bereich</translation>
    </message>
    <message>
        <source>Requantizing a quantized weight to its own format shows whether its codes are reproduced (error 0 when they are), not what quantization cost.</source>
        <translation>Ein quantisiertes Gewicht in sein eigenes Format neu zu quantisieren zeigt, ob seine Codes reproduziert werden (Fehler 0, wenn ja), nicht was die Quantisierung gekostet hat.</translation>
    </message>
    <message>
        <source>This is what %1 would add on top of the stored, already quantized values, not the error against the original weights.</source>
        <translation>Das ist, was %1 zu den gespeicherten, schon quantisierten Werten hinzufügen würde, nicht der Fehler gegenüber den ursprünglichen Gewichten.</translation>
    </message>
    <message>
        <source>A float reference of the same model (“Reference…”) gives the real error.</source>
        <translation>Eine Float-Referenz desselben Modells („Referenz…“) ergibt den echten Fehler.</translation>
    </message>
    <message>
        <source>A float checkpoint of the same model sits beside it: %1.</source>
        <translation>Daneben liegt ein Float-Checkpoint desselben Modells: %1.</translation>
    </message>
    <message>
        <source>Use %1 as reference</source>
        <translation>%1 als Referenz verwenden</translation>
    </message>
    <message>
        <source>Looking for a float reference beside %1</source>
        <translation>Suche eine Float-Referenz neben %1</translation>
    </message>
    <message>
        <source>%1, %2-bit g%3</source>
        <translation>%1, %2 Bit g%3</translation>
    </message>
    <message>
        <source>%1, %2-bit per row</source>
        <translation>%1, %2 Bit je Zeile</translation>
    </message>
    <message>
        <source>Histogram range</source>
        <translation>Histogrammbereich</translation>
    </message>
    <message>
        <source>range</source>
        <translation>Bereich</translation>
    </message>
    <message>
        <source>%1 … %2</source>
        <translation>%1 … %2</translation>
    </message>
    <message>
        <source>outside</source>
        <translation>außerhalb</translation>
    </message>
    <message>
        <source>%1 below, %2 above</source>
        <translation>%1 darunter, %2 darüber</translation>
    </message>
    <message>
        <source>No per-group chart: the target&apos;s groups of %1 columns %2 K = %3 of this weight, so each row is one group.</source>
        <translation>Kein Diagramm je Gruppe: Die Gruppen des Ziels von %1 Spalten %2 K = %3 dieses Gewichts, also ist jede Zeile eine Gruppe.</translation>
    </message>
    <message>
        <source>do not fit in</source>
        <translation>passen nicht in</translation>
    </message>
    <message>
        <source>span all</source>
        <translation>umfassen alle</translation>
    </message>
    <message>
        <source>Error per group of %1 columns</source>
        <translation>Fehler je Gruppe von %1 Spalten</translation>
    </message>
    <message>
        <source> · signed error against %1</source>
        <translation> · vorzeichenbehafteter Fehler gegenüber %1</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="74"/>
        <source>the weight&apos;s own format</source>
        <translation>eigenes Format des Gewichts</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="96"/>
        <source>Requantize the same weights</source>
        <translation>Dieselben Gewichte neu quantisieren</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="97"/>
        <source>Reference: the weight as stored, requantized to a format (what that format would cost on these weights), or the float tensor of the same name in another checkpoint</source>
        <translation>Referenz: das gespeicherte Gewicht, neu quantisiert in ein Format (was dieses Format bei diesen Gewichten kosten würde), oder der gleichnamige Float-Tensor eines anderen Checkpoints</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="99"/>
        <source>Reference…</source>
        <translation>Referenz…</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="100"/>
        <source>Open an fp16/bf16/f32 checkpoint to compare against</source>
        <translation>Einen fp16/bf16/f32-Checkpoint zum Vergleich öffnen</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="107"/>
        <source>bins: </source>
        <translation>Klassen: </translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="108"/>
        <source>Log scale</source>
        <translation>Log. Skala</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="111"/>
        <source>Reference:</source>
        <translation>Referenz:</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="115"/>
        <source>as</source>
        <translation>als</translation>
    </message>
    <message>
        <source>Cancelled.</source>
        <translation>Abgebrochen.</translation>
    </message>
    <message>
        <source>&amp;Compute again</source>
        <translation>&amp;Erneut berechnen</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="180"/>
        <location filename="../widgets/views/errorview.cpp" line="302"/>
        <source>Select a weight to see its error.</source>
        <translation>Wählen Sie ein Gewicht, um seinen Fehler zu sehen.</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="224"/>
        <source>Open a reference checkpoint</source>
        <translation>Referenz-Checkpoint öffnen</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="225"/>
        <source>Checkpoints (*.safetensors *.gguf);;All files (*)</source>
        <translation>Checkpoints (*.safetensors *.gguf);;Alle Dateien (*)</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="230"/>
        <source>Opening %1</source>
        <translation>Öffne %1</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="268"/>
        <source>its own format, %1</source>
        <translation>sein eigenes Format, %1</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="277"/>
        <source>%1 is stored as %2, which cannot be requantized to itself here: choose a format under &quot;as&quot; or open a float reference.</source>
        <translation>%1 ist als %2 gespeichert und kann hier nicht in sich selbst neu quantisiert werden: Wählen Sie ein Format unter „als“ oder öffnen Sie eine Float-Referenz.</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="342"/>
        <source>itself requantized to %1</source>
        <translation>sich selbst, neu quantisiert in %1</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="343"/>
        <source>Requantizing %1 and comparing…</source>
        <translation>Quantisiere %1 neu und vergleiche…</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="344"/>
        <location filename="../widgets/views/errorview.cpp" line="367"/>
        <source>Error of %1</source>
        <translation>Fehler von %1</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="365"/>
        <source>%1 in %2</source>
        <translation>%1 in %2</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="366"/>
        <source>Comparing %1 with %2…</source>
        <translation>Vergleiche %1 mit %2…</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="390"/>
        <source>&lt;b&gt;%1&lt;/b&gt; [%2 × %3] against %4. Error = dequantized − reference.</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; [%2 × %3] gegen %4. Fehler = dequantisiert − Referenz.</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="403"/>
        <source>Weight error</source>
        <translation>Gewichtsfehler</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="404"/>
        <source>elements</source>
        <translation>Elemente</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="405"/>
        <source>RMSE</source>
        <translation>RMSE</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="406"/>
        <source>mean |error|</source>
        <translation>mittlerer |Fehler|</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="407"/>
        <source>max |error|</source>
        <translation>max. |Fehler|</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="408"/>
        <source>mean signed error</source>
        <translation>mittlerer vorzeichenbehafteter Fehler</translation>
    </message>
    <message>
        <source>NaN or Inf</source>
        <translation>NaN oder Inf</translation>
    </message>
    <message>
        <source>%1 left out of every figure; the first at (%2, %3)</source>
        <translation>%1 aus allen Kennzahlen ausgelassen; das erste bei (%2, %3)</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="409"/>
        <source>SQNR</source>
        <translation>SQNR</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="409"/>
        <source>∞ (exact)</source>
        <translation>∞ (exakt)</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="409"/>
        <source>%1 dB</source>
        <translation>%1 dB</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="410"/>
        <source>Percentiles of |error|</source>
        <translation>Perzentile von |Fehler|</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="410"/>
        <source>Percentiles of |error| (sampled)</source>
        <translation>Perzentile von |Fehler| (Stichprobe)</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="411"/>
        <source>p50</source>
        <translation>p50</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="412"/>
        <source>p95</source>
        <translation>p95</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="413"/>
        <source>p99</source>
        <translation>p99</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="414"/>
        <source>p99.9</source>
        <translation>p99,9</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="415"/>
        <source>Output y = W x</source>
        <translation>Ausgabe y = W x</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="416"/>
        <source>relative error</source>
        <translation>relativer Fehler</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="417"/>
        <source>cosine</source>
        <translation>Kosinus</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="418"/>
        <source>activations</source>
        <translation>Aktivierungen</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="418"/>
        <source>%1 tokens, outlier channels</source>
        <translation>%1 Tokens, Ausreißerkanäle</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="420"/>
        <source>Groups</source>
        <translation>Gruppen</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="421"/>
        <source>groups</source>
        <translation>Gruppen</translation>
    </message>
    <message numerus="yes">
        <source>%n of %1 columns each</source>
        <translation>
            <numerusform>%n zu je %1 Spalten</numerusform>
            <numerusform>%n zu je %1 Spalten</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n, columns assigned by g_idx (act-order)</source>
        <translation>
            <numerusform>%n, Spalten nach g_idx zugeordnet (Act-Order)</numerusform>
            <numerusform>%n, Spalten nach g_idx zugeordnet (Act-Order)</numerusform>
        </translation>
    </message>
    <message>
        <source>Error per group (act-order: columns by g_idx)</source>
        <translation>Fehler je Gruppe (Act-Order: Spalten nach g_idx)</translation>
    </message>
    <message>
        <source>a symmetric scale is 2·max|w| / (2^b − 1) of the original weights, whose largest |w| lies between two levels; the dequantized values&apos; largest is a level (%1 or %2 steps), so the requantizer finds another scale and rounds every value anew</source>
        <translation>eine symmetrische Skala ist 2·max|w| / (2^b − 1) der ursprünglichen Gewichte, deren größtes |w| zwischen zwei Stufen liegt; das größte der dequantisierten Werte ist eine Stufe (%1 oder %2 Schritte), also findet der Requantisierer eine andere Skala und rundet jeden Wert neu</translation>
    </message>
    <message>
        <source>its groups follow g_idx (act-order), the requantizer&apos;s are columns k / %1</source>
        <translation>seine Gruppen folgen g_idx (Act-Order), die des Requantisierers sind die Spalten k / %1</translation>
    </message>
    <message>
        <source>Requantizing this weight to its own format cannot reproduce its codes: %1. The error shown is that of quantizing twice, not a fault of the file, nor what quantization cost.</source>
        <translation>Dieses Gewicht in sein eigenes Format zu requantisieren kann seine Codes nicht reproduzieren: %1. Der gezeigte Fehler ist der einer zweifachen Quantisierung, kein Fehler der Datei und nicht, was die Quantisierung gekostet hat.</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="424"/>
        <source>worst group (RMSE)</source>
        <translation>schlechteste Gruppe (RMSE)</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="424"/>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="439"/>
        <source>Signed error, %1 bins</source>
        <translation>Vorzeichenbehafteter Fehler, %1 Klassen</translation>
    </message>
    <message>
        <location filename="../widgets/views/errorview.cpp" line="223"/>
        <source>%1 (the weight is %2)</source>
        <translation>%1 (das Gewicht ist %2)</translation>
    </message>
    <message>
        <source>Open a reference checkpoint with “Reference…”.</source>
        <translation>Öffnen Sie einen Referenz-Checkpoint mit „Referenz…“.</translation>
    </message>
    <message>
        <source>Importance-weighted (imatrix)</source>
        <translation>Nach Wichtigkeit gewichtet (Imatrix)</translation>
    </message>
    <message>
        <source>weighted MSE</source>
        <translation>gewichteter MSE</translation>
    </message>
    <message>
        <source>plain MSE</source>
        <translation>ungewichteter MSE</translation>
    </message>
    <message>
        <source>weighted sum</source>
        <translation>gewichtete Summe</translation>
    </message>
    <message>
        <source>relative to the weights</source>
        <translation>relativ zu den Gewichten</translation>
    </message>
</context>
<context>
    <name>qsw::GuideDialog</name>
    <message>
        <source>&lt;h2&gt;Quantscope guide&lt;/h2&gt;&lt;p&gt;Quantscope shows how quantized LLM weights are laid out in memory and checks them. Every view follows the weight selected in the &lt;b&gt;tensor browser&lt;/b&gt; on the left, and an element selected in one view is selected in all.&lt;/p&gt;</source>
        <translation>&lt;h2&gt;Quantscope-Leitfaden&lt;/h2&gt;&lt;p&gt;Quantscope zeigt, wie quantisierte LLM-Gewichte im Speicher liegen, und prüft sie. Jede Ansicht folgt dem im &lt;b&gt;Tensor-Browser&lt;/b&gt; links gewählten Gewicht, und ein in einer Ansicht gewähltes Element ist in allen gewählt.&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;h3&gt;First steps&lt;/h3&gt;&lt;ol&gt;&lt;li&gt;Open a .gguf or .safetensors file or a checkpoint folder (File &amp;gt; Open, or drop it on the window); File &amp;gt; Open Demo Checkpoint has a small one to try.&lt;/li&gt;&lt;li&gt;Pick a weight in the tensor browser (Ctrl+F filters by name or format); a warning mark says detection left a note on it, shown in its tooltip and in the inspector.&lt;/li&gt;&lt;li&gt;Switch views with the tabs, Ctrl+Tab or Ctrl+PgDown; export one with Ctrl+E.&lt;/li&gt;&lt;/ol&gt;</source>
        <translation>&lt;h3&gt;Erste Schritte&lt;/h3&gt;&lt;ol&gt;&lt;li&gt;Öffnen Sie eine .gguf- oder .safetensors-Datei oder einen Checkpoint-Ordner (Datei &amp;gt; Öffnen oder per Ablegen auf dem Fenster); Datei &amp;gt; Demo-Checkpoint öffnen bietet einen kleinen zum Ausprobieren.&lt;/li&gt;&lt;li&gt;Wählen Sie ein Gewicht im Tensor-Browser (Strg+F filtert nach Name oder Format); ein Warnzeichen bedeutet, dass die Erkennung eine Anmerkung hinterlassen hat, zu sehen im Tooltip und im Inspektor.&lt;/li&gt;&lt;li&gt;Wechseln Sie die Ansicht mit den Reitern, Strg+Tab oder Strg+Bild ab; exportieren Sie sie mit Strg+E.&lt;/li&gt;&lt;/ol&gt;</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Views&lt;/h3&gt;</source>
        <translation>&lt;h3&gt;Ansichten&lt;/h3&gt;</translation>
    </message>
    <message>
        <source>&lt;h3&gt;For teaching&lt;/h3&gt;&lt;p&gt;Open one model in two formats (a GPTQ folder and a GGUF of the same weights) and compare them in the Diff view; show a group&apos;s codes in the Bit map and its scale in Scales; let students predict the error of 3 bits against 4 in the Playground before they look at the Error view. quantscope FILE --view NAME --weight W --screenshot out.png makes the same figure from a script.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Für den Unterricht&lt;/h3&gt;&lt;p&gt;Öffnen Sie ein Modell in zwei Formaten (einen GPTQ-Ordner und ein GGUF derselben Gewichte) und vergleichen Sie sie in der Vergleichsansicht; zeigen Sie die Codes einer Gruppe in der Bitkarte und ihre Skala unter Skalen; lassen Sie die Lernenden in der Spielwiese den Fehler von 3 gegen 4 Bits vorhersagen, bevor sie die Fehleransicht ansehen. quantscope DATEI --view NAME --weight W --screenshot out.png erzeugt dieselbe Abbildung aus einem Skript.&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Quantscope Guide</source>
        <translation>Quantscope-Leitfaden</translation>
    </message>
    <message>
        <source>&lt;h3&gt;The first five minutes&lt;/h3&gt;&lt;p&gt;A walk on the demo checkpoint for a learner: each step opens the demo at the weight, element and view it talks about.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Die ersten fünf Minuten&lt;/h3&gt;&lt;p&gt;Ein Rundgang durch den Demo-Checkpoint für Lernende: Jeder Schritt öffnet die Demo bei dem Gewicht, dem Element und der Ansicht, von denen er spricht.&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Codes in a word</source>
        <translation>Codes in einem Wort</translation>
    </message>
    <message>
        <source>A quantized weight stores small integer codes, not numbers. In this GPTQ layer every 32-bit word of qweight holds the 4-bit codes of eight neighbouring input columns of one output feature: column k sits at bits 4 × (k mod 8). The Bit map colours each code by its element and outlines the selected one; hover a code for its value.</source>
        <translation>Ein quantisiertes Gewicht speichert kleine ganzzahlige Codes, keine Zahlen. In dieser GPTQ-Schicht hält jedes 32-Bit-Wort von qweight die 4-Bit-Codes von acht benachbarten Eingangsspalten eines Ausgangsmerkmals: Spalte k liegt in den Bits 4 × (k mod 8). Die Bitkarte färbt jeden Code nach seinem Element und umrandet das gewählte; zeigen Sie auf einen Code, um seinen Wert zu sehen.</translation>
    </message>
    <message>
        <source>Scale: one step per group</source>
        <translation>Skala: eine Stufe je Gruppe</translation>
    </message>
    <message>
        <source>A code becomes a value as scale × (code − zero). The 64 input columns of a group share one scale per output feature: the heatmap has a cell per group (across) and output row (down). The bright lines are groups holding an outlier (the demo makes 0.5 % of its weights 8 times larger): one large weight sets its group&apos;s step, so every other weight of the group is rounded more coarsely. Smaller groups lose less, and store more scales.</source>
        <translation>Ein Code wird zum Wert als Skala × (Code − Nullpunkt). Die 64 Eingangsspalten einer Gruppe teilen sich eine Skala je Ausgangsmerkmal: Die Heatmap hat eine Zelle je Gruppe (quer) und Ausgangszeile (abwärts). Die hellen Linien sind Gruppen mit einem Ausreißer (die Demo macht 0,5 % ihrer Gewichte 8-mal größer): Ein großes Gewicht bestimmt die Stufe seiner Gruppe, also wird jedes andere Gewicht der Gruppe gröber gerundet. Kleinere Gruppen verlieren weniger und speichern mehr Skalen.</translation>
    </message>
    <message>
        <source>Zero point</source>
        <translation>Nullpunkt</translation>
    </message>
    <message>
        <source>Symmetric GPTQ (layers 0 and 1) centres every group on its middle code, so the zero point is fixed. This AWQ layer is asymmetric: each group also stores a zero point (in qzeros), chosen so that its smallest and largest weight land on codes 0 and 15. Switch the view from scales to zero points to see them.</source>
        <translation>Symmetrisches GPTQ (Schichten 0 und 1) zentriert jede Gruppe auf ihren mittleren Code, der Nullpunkt ist also fest. Diese AWQ-Schicht ist asymmetrisch: Jede Gruppe speichert auch einen Nullpunkt (in qzeros), so gewählt, dass ihr kleinstes und größtes Gewicht auf den Codes 0 und 15 landen. Schalten Sie die Ansicht von Skalen auf Nullpunkte um, um sie zu sehen.</translation>
    </message>
    <message>
        <source>Groups in act-order</source>
        <translation>Gruppen in Act-Order</translation>
    </message>
    <message>
        <source>With act-order, GPTQ quantizes the input columns by importance and forms its groups in that order; g_idx stores each column&apos;s group. Group 0 holds the loudest columns, so its scales are the largest, and they shrink from group to group. Column 3 is in group 3, not in group 0 as its position (3 / 32) would say: the outlined cell follows g_idx, as do the Bit map, the Error view and the Playground.</source>
        <translation>Mit Act-Order quantisiert GPTQ die Eingangsspalten nach Wichtigkeit und bildet seine Gruppen in dieser Reihenfolge; g_idx speichert die Gruppe jeder Spalte. Gruppe 0 enthält die lautesten Spalten, also sind ihre Skalen die größten, und sie werden von Gruppe zu Gruppe kleiner. Spalte 3 liegt in Gruppe 3, nicht in Gruppe 0, wie ihre Position (3 / 32) sagen würde: Die umrandete Zelle folgt g_idx, ebenso die Bitkarte, die Fehleransicht und die Spielwiese.</translation>
    </message>
    <message>
        <source>Codes across words</source>
        <translation>Codes über Wortgrenzen</translation>
    </message>
    <message>
        <source>3 bits do not divide 32: 32 codes fill exactly three words, and column 10&apos;s code has its two low bits at the top of word 0 and its last bit at the bottom of word 128, the next word along the input axis (a row of qweight is 128 words). The Bit map draws it in two pieces; the panel beside it shows both words.</source>
        <translation>3 Bit teilen 32 nicht: 32 Codes füllen genau drei Wörter, und der Code von Spalte 10 hat seine zwei niedrigen Bits oben in Wort 0 und sein letztes Bit unten in Wort 128, dem nächsten Wort entlang der Eingangsachse (eine Zeile von qweight ist 128 Wörter lang). Die Bitkarte zeichnet ihn in zwei Teilen; die Tafel daneben zeigt beide Wörter.</translation>
    </message>
    <message>
        <source>Slot order</source>
        <translation>Slot-Reihenfolge</translation>
    </message>
    <message>
        <source>AWQ&apos;s GEMM layout packs eight output features per word in the order 0, 2, 4, 6, 1, 3, 5, 7, which its GPU kernel unpacks cheaply. Pick a GPTQ format in the view to see the natural order: the same codes in another order are another file, and a reader that assumes the wrong order decodes every value wrongly.</source>
        <translation>Das GEMM-Layout von AWQ packt acht Ausgangsmerkmale je Wort in der Reihenfolge 0, 2, 4, 6, 1, 3, 5, 7, die sein GPU-Kernel günstig entpackt. Wählen Sie in der Ansicht ein GPTQ-Format, um die natürliche Reihenfolge zu sehen: Dieselben Codes in anderer Reihenfolge sind eine andere Datei, und ein Leser, der die falsche Reihenfolge annimmt, dekodiert jeden Wert falsch.</translation>
    </message>
    <message>
        <source>Fewer bits, more error</source>
        <translation>Weniger Bits, mehr Fehler</translation>
    </message>
    <message>
        <source>Quantize a row of this unquantized (bf16) layer yourself: lower the bits from 4 to 3 and watch the SQNR fall by about 6 dB for the bit taken away; a smaller group size lowers the error and stores one more scale per group.</source>
        <translation>Quantisieren Sie selbst eine Zeile dieser unquantisierten (bf16) Schicht: Senken Sie die Bits von 4 auf 3 und sehen Sie, wie das SQNR um etwa 6 dB für das weggenommene Bit fällt; eine kleinere Gruppengröße senkt den Fehler und speichert eine Skala mehr je Gruppe.</translation>
    </message>
    <message>
        <source>The whole weight&apos;s error</source>
        <translation>Der Fehler des ganzen Gewichts</translation>
    </message>
    <message>
        <source>The Error view quantizes the whole weight to a target format and shows the error of every element as a histogram, with its statistics (SQNR, percentiles, the error of y = W x): pick another target to see what a conversion would cost before you make it.</source>
        <translation>Die Fehleransicht quantisiert das ganze Gewicht in ein Zielformat und zeigt den Fehler jedes Elements als Histogramm mit seinen Kennzahlen (SQNR, Perzentile, der Fehler von y = W x): Wählen Sie ein anderes Ziel, um zu sehen, was eine Umwandlung kosten würde, bevor Sie sie vornehmen.</translation>
    </message>
</context>
<context>
    <name>qsw::Inspector</name>
    <message>
        <location filename="../widgets/inspector.cpp" line="55"/>
        <source>No checkpoint is open.</source>
        <translation>Kein Checkpoint geöffnet.</translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="65"/>
        <source>Path</source>
        <translation>Pfad</translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="66"/>
        <source>Container</source>
        <translation>Container</translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="66"/>
        <source>%1 version %2</source>
        <translation>%1 Version %2</translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="67"/>
        <source>Files</source>
        <translation>Dateien</translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="68"/>
        <source>Size on disk</source>
        <translation>Größe auf der Festplatte</translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="69"/>
        <location filename="../widgets/inspector.cpp" line="120"/>
        <source>Stored tensors</source>
        <translation>Gespeicherte Tensoren</translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="70"/>
        <source>Logical weights</source>
        <translation>Logische Gewichte</translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="80"/>
        <source>Formats</source>
        <translation>Formate</translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/inspector.cpp" line="84"/>
        <source>%n weight(s), %1</source>
        <translation>
            <numerusform>%n Gewicht, %1</numerusform>
            <numerusform>%n Gewichte, %1</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="88"/>
        <location filename="../widgets/inspector.cpp" line="140"/>
        <source>Notes</source>
        <translation>Hinweise</translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="94"/>
        <source>Select a weight in the tensor browser to see its details.</source>
        <translation>Wählen Sie ein Gewicht im Tensor-Browser, um seine Details zu sehen.</translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="102"/>
        <source>Logical shape [out, in]</source>
        <translation>Logische Form [out, in]</translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="104"/>
        <source>Bits</source>
        <translation>Bits</translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="106"/>
        <source>Group size</source>
        <translation>Gruppengröße</translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="109"/>
        <source>Zero point</source>
        <translation>Nullpunkt</translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="109"/>
        <source>symmetric</source>
        <translation>symmetrisch</translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="109"/>
        <source>asymmetric</source>
        <translation>asymmetrisch</translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="110"/>
        <source>Act-order</source>
        <translation>Act-Order</translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="110"/>
        <source>yes (g_idx is not k / group size)</source>
        <translation>ja (g_idx ist nicht k / Gruppengröße)</translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="111"/>
        <source>labelled desc_act, but groups are sequential</source>
        <translation>als desc_act markiert, aber die Gruppen sind fortlaufend</translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="111"/>
        <source>no</source>
        <translation>nein</translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="113"/>
        <source>Elements</source>
        <translation>Elemente</translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="114"/>
        <source>Stored bytes</source>
        <translation>Gespeicherte Bytes</translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="114"/>
        <source>%1 (%2 bytes)</source>
        <translation>%1 (%2 Bytes)</translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="115"/>
        <source>Effective bits per weight</source>
        <translation>Effektive Bits pro Gewicht</translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="122"/>
        <source>Role</source>
        <translation>Rolle</translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="122"/>
        <source>Tensor</source>
        <translation>Tensor</translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="122"/>
        <source>Type</source>
        <translation>Typ</translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="122"/>
        <source>Shape</source>
        <translation>Form</translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="122"/>
        <source>Bytes</source>
        <translation>Bytes</translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="134"/>
        <source>Evidence</source>
        <translation>Belege</translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="142"/>
        <source>Detection found nothing to report.</source>
        <translation>Die Erkennung hat nichts zu melden.</translation>
    </message>
    <message>
        <source>Opened as</source>
        <translation>Geöffnet als</translation>
    </message>
    <message>
        <source>Left out (in the folder, not read)</source>
        <translation>Ausgelassen (im Ordner, nicht gelesen)</translation>
    </message>
</context>
<context>
    <name>qsw::JobRunner</name>
    <message>
        <location filename="../widgets/jobrunner.cpp" line="51"/>
        <source>out of memory</source>
        <translation>Speicher erschöpft</translation>
    </message>
    <message>
        <location filename="../widgets/jobrunner.cpp" line="53"/>
        <source>internal error: %1</source>
        <translation>interner Fehler: %1</translation>
    </message>
</context>
<context>
    <name>qsw::MainWindow</name>
    <message numerus="yes">
        <source>%n layer(s): too many to expand at once; expand the ones you need.</source>
        <translation>
            <numerusform>%n Schicht: zu viele, um sie auf einmal aufzuklappen; klappen Sie die benötigten auf.</numerusform>
            <numerusform>%n Schichten: zu viele, um sie auf einmal aufzuklappen; klappen Sie die benötigten auf.</numerusform>
        </translation>
    </message>
    <message>
        <source>Open &amp;URL…</source>
        <translation>&amp;URL öffnen…</translation>
    </message>
    <message>
        <source>Bytes of the remote checkpoint held in the cache (%1), against the size of its files: a weight&apos;s bytes are fetched when a view needs them</source>
        <translation>Bytes des entfernten Checkpoints im Zwischenspeicher (%1), gegenüber der Größe seiner Dateien: die Bytes eines Gewichts werden geladen, wenn eine Ansicht sie braucht</translation>
    </message>
    <message>
        <source>%1 of %2 fetched</source>
        <translation>%1 von %2 geladen</translation>
    </message>
    <message>
        <source>Fetching %1: %2 of %3</source>
        <translation>Lade %1: %2 von %3</translation>
    </message>
    <message>
        <source>%1 on the server</source>
        <translation>%1 auf dem Server</translation>
    </message>
    <message>
        <source>%1: cannot encode PNG</source>
        <translation>%1: PNG kann nicht kodiert werden</translation>
    </message>
    <message>
        <source>Reload</source>
        <translation>Neu laden</translation>
    </message>
    <message>
        <source>Changed on disk: %1. What the views show was read from the file as it was, or from what is left of it; reload to see it as it is now.</source>
        <translation>Auf der Festplatte geändert: %1. Was die Ansichten zeigen, wurde aus der Datei gelesen, wie sie war, oder aus dem, was von ihr übrig ist; neu laden, um sie zu sehen, wie sie jetzt ist.</translation>
    </message>
    <message>
        <source>Export &amp;Table as CSV…</source>
        <translation>&amp;Tabelle als CSV exportieren…</translation>
    </message>
    <message>
        <source>The table of the current tab: stored tensors, metadata, the Diff list, Verify&apos;s findings, the Recipe&apos;s weights or the Error view&apos;s statistics</source>
        <translation>Die Tabelle des aktuellen Reiters: gespeicherte Tensoren, Metadaten, die Diff-Liste, die Befunde der Prüfung, die Gewichte des Rezepts oder die Statistik der Fehleransicht</translation>
    </message>
    <message>
        <source>The current tab shows no table to export.</source>
        <translation>Der aktuelle Reiter zeigt keine Tabelle zum Exportieren.</translation>
    </message>
    <message>
        <source>Export Table</source>
        <translation>Tabelle exportieren</translation>
    </message>
    <message>
        <source>CSV table (*.csv)</source>
        <translation>CSV-Tabelle (*.csv)</translation>
    </message>
    <message>
        <source>Every weight</source>
        <translation>Alle Gewichte</translation>
    </message>
    <message>
        <source>Only %1</source>
        <translation>Nur %1</translation>
    </message>
    <message>
        <source>Weights in the report:</source>
        <translation>Gewichte im Bericht:</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="290"/>
        <source>Export &amp;Report…</source>
        <translation>&amp;Bericht exportieren…</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="293"/>
        <source>Export Report</source>
        <translation>Bericht exportieren</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="294"/>
        <source>HTML page (*.html);;Markdown with PNG figures (*.md);;PDF document (*.pdf)</source>
        <translation>HTML-Seite (*.html);;Markdown mit PNG-Abbildungen (*.md);;PDF-Dokument (*.pdf)</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="496"/>
        <source>Writing report</source>
        <translation>Bericht wird geschrieben</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="520"/>
        <source>Report written to %1</source>
        <translation>Bericht geschrieben nach %1</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="134"/>
        <source>Quantscope</source>
        <translation>Quantscope</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="203"/>
        <source>Filter stored tensors</source>
        <translation>Gespeicherte Tensoren filtern</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="215"/>
        <source>Filter metadata</source>
        <translation>Metadaten filtern</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="247"/>
        <source>Tensor browser</source>
        <translation>Tensor-Browser</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="250"/>
        <source>Filter by name or format (%1)</source>
        <translation>Nach Name oder Format filtern (%1)</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="1200"/>
        <source>The filter hides the selected weight %1. &lt;a href=&quot;show&quot;&gt;Show it&lt;/a&gt;</source>
        <translation>Der Filter verbirgt das ausgewählte Gewicht %1. &lt;a href=&quot;show&quot;&gt;Anzeigen&lt;/a&gt;</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="255"/>
        <source>Inspector</source>
        <translation>Inspektor</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="268"/>
        <source>&amp;File</source>
        <translation>&amp;Datei</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="269"/>
        <source>Main toolbar</source>
        <translation>Hauptwerkzeugleiste</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="273"/>
        <source>&amp;Open File…</source>
        <translation>Datei ö&amp;ffnen …</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="275"/>
        <source>Open &amp;Folder…</source>
        <translation>&amp;Ordner öffnen …</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="277"/>
        <source>Open &amp;Recent</source>
        <translation>&amp;Zuletzt geöffnet</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="278"/>
        <source>Open &amp;Demo Checkpoint</source>
        <translation>De&amp;mo-Checkpoint öffnen</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="279"/>
        <source>Re&amp;load</source>
        <translation>&amp;Neu laden</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="299"/>
        <source>Close &amp;Window</source>
        <translation>&amp;Fenster schließen</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="301"/>
        <source>&amp;Quit</source>
        <translation>&amp;Beenden</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="308"/>
        <source>&amp;Edit</source>
        <translation>&amp;Bearbeiten</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="309"/>
        <source>&amp;Find Weight</source>
        <translation>Gewicht &amp;suchen</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="314"/>
        <source>&amp;Copy Weight Name</source>
        <translation>Gewichtsnamen &amp;kopieren</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="319"/>
        <source>&amp;View</source>
        <translation>&amp;Ansicht</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="324"/>
        <source>E&amp;xpand All Layers</source>
        <translation>Alle Schichten a&amp;usklappen</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="325"/>
        <source>C&amp;ollapse All Layers</source>
        <translation>Alle Schichten &amp;einklappen</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="327"/>
        <source>&amp;Theme</source>
        <translation>&amp;Farbschema</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="329"/>
        <source>&amp;System</source>
        <translation>&amp;System</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="329"/>
        <source>&amp;Light</source>
        <translation>&amp;Hell</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="329"/>
        <source>&amp;Dark</source>
        <translation>&amp;Dunkel</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="335"/>
        <source>&amp;Full Screen</source>
        <translation>&amp;Vollbild</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="341"/>
        <source>&amp;Help</source>
        <translation>&amp;Hilfe</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="342"/>
        <source>&amp;About Quantscope</source>
        <translation>&amp;Über Quantscope</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="343"/>
        <source>About &amp;Qt</source>
        <translation>Über &amp;Qt</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="556"/>
        <source>Still opening %1…</source>
        <translation>%1 wird noch geöffnet …</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="160"/>
        <source>Opening %1 cancelled</source>
        <translation>Öffnen von %1 abgebrochen</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="559"/>
        <location filename="../widgets/mainwindow.cpp" line="588"/>
        <source>the demo checkpoint</source>
        <translation>den Demo-Checkpoint</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="561"/>
        <source>Opening %1…</source>
        <translation>%1 wird geöffnet …</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="574"/>
        <source>%1: out of memory</source>
        <translation>%1: Speicher erschöpft</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="576"/>
        <source>%1: internal error: %2</source>
        <translation>%1: interner Fehler: %2</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="618"/>
        <source>Demo checkpoint</source>
        <translation>Demo-Checkpoint</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="619"/>
        <source>%1 — Quantscope</source>
        <translation>%1 — Quantscope</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="642"/>
        <source>Cannot open checkpoint</source>
        <translation>Checkpoint kann nicht geöffnet werden</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="643"/>
        <source>Quantscope could not open %1.</source>
        <translation>Quantscope konnte %1 nicht öffnen.</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="651"/>
        <source>Kept %1 open.</source>
        <translation>%1 bleibt geöffnet.</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="659"/>
        <source>No checkpoint open</source>
        <translation>Kein Checkpoint geöffnet</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="667"/>
        <source>Demo: %1</source>
        <translation>Demo: %1</translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/mainwindow.cpp" line="669"/>
        <source>%n tensor(s), </source>
        <translation>
            <numerusform>%n Tensor, </numerusform>
            <numerusform>%n Tensoren, </numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/mainwindow.cpp" line="670"/>
        <source>%n weight(s)</source>
        <translation>
            <numerusform>%n Gewicht</numerusform>
            <numerusform>%n Gewichte</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="671"/>
        <source>%1 on disk</source>
        <translation>%1 auf der Festplatte</translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/mainwindow.cpp" line="672"/>
        <source>%1 mapped in %n file(s)</source>
        <translation>
            <numerusform>%1 in %n Datei eingeblendet</numerusform>
            <numerusform>%1 in %n Dateien eingeblendet</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="712"/>
        <source>&amp;%1 %2</source>
        <translation>&amp;%1 %2</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="717"/>
        <source>&amp;Clear List</source>
        <translation>Liste &amp;leeren</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="861"/>
        <source>Open Checkpoint</source>
        <translation>Checkpoint öffnen</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="862"/>
        <source>Checkpoints (*.gguf *.safetensors *.safetensors.index.json *.bin *.pt *.pth);;GGUF (*.gguf);;safetensors (*.safetensors);;PyTorch (*.bin *.pt *.pth);;All files (*)</source>
        <translation>Checkpoints (*.gguf *.safetensors *.safetensors.index.json *.bin *.pt *.pth);;GGUF (*.gguf);;safetensors (*.safetensors);;PyTorch (*.bin *.pt *.pth);;Alle Dateien (*)</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="872"/>
        <source>Open Checkpoint Folder</source>
        <translation>Checkpoint-Ordner öffnen</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="889"/>
        <source>About Quantscope</source>
        <translation>Über Quantscope</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="890"/>
        <source>&lt;h3&gt;Quantscope %1&lt;/h3&gt;&lt;p&gt;See and check how quantized LLM weights are laid out in memory: GGUF, GPTQ, AWQ, bitsandbytes, compressed-tensors and MLX.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Quantscope %1&lt;/h3&gt;&lt;p&gt;Ansehen und prüfen, wie quantisierte LLM-Gewichte im Speicher liegen: GGUF, GPTQ, AWQ, bitsandbytes, compressed-tensors und MLX.&lt;/p&gt;</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="287"/>
        <source>&amp;Export View…</source>
        <translation>Ansicht &amp;exportieren…</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="369"/>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="370"/>
        <source>Cancel the background job</source>
        <translation>Die Hintergrundaufgabe abbrechen</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="389"/>
        <source>Memory this process holds for itself (private resident memory), mapped checkpoint pages not counted</source>
        <translation>Speicher, den dieser Prozess für sich hält (privater residenter Speicher), eingeblendete Checkpoint-Seiten nicht mitgezählt</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="403"/>
        <source>%1 private</source>
        <translation>%1 privat</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="459"/>
        <source>The current tab is not an analysis view.</source>
        <translation>Der aktuelle Reiter ist keine Analyseansicht.</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="471"/>
        <source>Export %1</source>
        <translation>%1 exportieren</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="478"/>
        <source>Exported %1</source>
        <translation>%1 exportiert</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="480"/>
        <source>Export failed</source>
        <translation>Export fehlgeschlagen</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="489"/>
        <source>%1: use .html, .md or .pdf</source>
        <translation>%1: .html, .md oder .pdf verwenden</translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/mainwindow.cpp" line="549"/>
        <source>%1 (+%n more)</source>
        <translation>
            <numerusform>%1 (+%n weitere)</numerusform>
            <numerusform>%1 (+%n weitere)</numerusform>
        </translation>
    </message>
    <message>
        <source>Clear Re&amp;ference</source>
        <translation>Re&amp;ferenz entfernen</translation>
    </message>
    <message>
        <source>Close the Error view&apos;s reference checkpoint and unmap its files</source>
        <translation>Den Referenz-Checkpoint der Fehleransicht schließen und seine Dateien freigeben</translation>
    </message>
    <message>
        <source>Close &amp;B</source>
        <translation>&amp;B schließen</translation>
    </message>
    <message>
        <source>Close the Diff view&apos;s checkpoint B and unmap its files</source>
        <translation>Checkpoint B der Diff-Ansicht schließen und seine Dateien freigeben</translation>
    </message>
    <message>
        <source>&amp;Close Checkpoint</source>
        <translation>Checkpoint s&amp;chließen</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>%1 of the checkpoint in RAM</source>
        <translation>%1 des Checkpoints im RAM</translation>
    </message>
    <message>
        <source>Pages of the mapped checkpoint files that have been read and are held in the page cache (the system drops them when it needs the memory):
%1</source>
        <translation>Seiten der eingeblendeten Checkpoint-Dateien, die gelesen wurden und im Seitencache liegen (das System gibt sie frei, wenn es den Speicher braucht):
%1</translation>
    </message>
    <message>
        <source>the reference %1</source>
        <translation>die Referenz %1</translation>
    </message>
    <message>
        <source>checkpoint B %1</source>
        <translation>Checkpoint B %1</translation>
    </message>
    <message>
        <source>Keep the comparison?</source>
        <translation>Vergleich behalten?</translation>
    </message>
    <message>
        <source>Keep %1 for %2?</source>
        <translation>%1 für %2 behalten?</translation>
    </message>
    <message>
        <source> and </source>
        <translation> und </translation>
    </message>
    <message>
        <source>They were opened for the previous checkpoint. Closing them unmaps their files.</source>
        <translation>Sie wurden für den vorigen Checkpoint geöffnet. Schließen gibt ihre Dateien frei.</translation>
    </message>
    <message>
        <source>Keep</source>
        <translation>Behalten</translation>
    </message>
    <message>
        <source>Close Them</source>
        <translation>Schließen</translation>
    </message>
    <message>
        <source>Which checkpoint?</source>
        <translation>Welcher Checkpoint?</translation>
    </message>
    <message>
        <source>%1 holds several checkpoints and no index or model.safetensors that says which one to open. Open:</source>
        <translation>%1 enthält mehrere Checkpoints und keinen Index und keine model.safetensors, die sagen, welcher zu öffnen ist. Öffnen:</translation>
    </message>
    <message numerus="yes">
        <source>%1 (%n shards)</source>
        <translation>
            <numerusform>%1 (%n Shard)</numerusform>
            <numerusform>%1 (%n Shards)</numerusform>
        </translation>
    </message>
    <message>
        <source>Opened %1; left out: %2</source>
        <translation>%1 geöffnet; ausgelassen: %2</translation>
    </message>
    <message>
        <source>&amp;Next View</source>
        <translation>&amp;Nächste Ansicht</translation>
    </message>
    <message>
        <source>&amp;Previous View</source>
        <translation>&amp;Vorige Ansicht</translation>
    </message>
    <message>
        <source>Quantscope &amp;Guide</source>
        <translation>Quantscope-&amp;Leitfaden</translation>
    </message>
</context>
<context>
    <name>qsw::MetadataModel</name>
    <message>
        <location filename="../widgets/tablemodels.cpp" line="148"/>
        <source>Key</source>
        <translation>Schlüssel</translation>
    </message>
    <message>
        <location filename="../widgets/tablemodels.cpp" line="149"/>
        <source>Type</source>
        <translation>Typ</translation>
    </message>
    <message>
        <location filename="../widgets/tablemodels.cpp" line="150"/>
        <source>Value</source>
        <translation>Wert</translation>
    </message>
    <message>
        <location filename="../widgets/tablemodels.cpp" line="151"/>
        <source>Source</source>
        <translation>Quelle</translation>
    </message>
    <message numerus="yes">
        <source>%n item(s): expand the row to browse them</source>
        <translation>
            <numerusform>%n Eintrag: Zeile aufklappen, um ihn anzusehen</numerusform>
            <numerusform>%n Einträge: Zeile aufklappen, um sie anzusehen</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>qsw::PlaygroundView</name>
    <message>
        <source>&lt;b&gt;Codes&lt;/b&gt;: all %1 reproduce the stored codes of this row</source>
        <translation>&lt;b&gt;Codes&lt;/b&gt;: alle %1 reproduzieren die gespeicherten Codes dieser Zeile</translation>
    </message>
    <message>
        <source>&lt;b&gt;Codes&lt;/b&gt;: %1 of %2 reproduce the stored codes of this row</source>
        <translation>&lt;b&gt;Codes&lt;/b&gt;: %1 von %2 reproduzieren die gespeicherten Codes dieser Zeile</translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;Codes&lt;/b&gt;: all %1 codes and %n scale(s) reproduce the stored ones of this row</source>
        <translation>
            <numerusform>&lt;b&gt;Codes&lt;/b&gt;: alle %1 Codes und die %n Skala reproduzieren die gespeicherten dieser Zeile</numerusform>
            <numerusform>&lt;b&gt;Codes&lt;/b&gt;: alle %1 Codes und %n Skalen reproduzieren die gespeicherten dieser Zeile</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;Codes&lt;/b&gt;: %1 of %2 codes and %3 of %n scale(s) reproduce the stored ones of this row</source>
        <translation>
            <numerusform>&lt;b&gt;Codes&lt;/b&gt;: %1 von %2 Codes und %3 von %n Skala reproduzieren die gespeicherten dieser Zeile</numerusform>
            <numerusform>&lt;b&gt;Codes&lt;/b&gt;: %1 von %2 Codes und %3 von %n Skalen reproduzieren die gespeicherten dieser Zeile</numerusform>
        </translation>
    </message>
    <message>
        <source>: a symmetric scale is 2·max|w| / (2^b − 1) of the original weights, whose largest |w| lies between two levels; rounding the stored values again starts from a level and finds another scale</source>
        <translation>: eine symmetrische Skala ist 2·max|w| / (2^b − 1) der ursprünglichen Gewichte, deren größtes |w| zwischen zwei Stufen liegt; das erneute Runden der gespeicherten Werte geht von einer Stufe aus und findet eine andere Skala</translation>
    </message>
    <message>
        <source>: the stored weight&apos;s quantizer chose another range (clipping, a search for the scale)</source>
        <translation>: der Quantisierer des gespeicherten Gewichts wählte einen anderen Bereich (Abschneiden, Suche nach der Skala)</translation>
    </message>
    <message>
        <source>: with the same scales, the stored weight&apos;s quantizer rounded the others differently (error feedback, as GPTQ&apos;s)</source>
        <translation>: bei gleichen Skalen rundete der Quantisierer des gespeicherten Gewichts die übrigen anders (Fehlerrückführung wie bei GPTQ)</translation>
    </message>
    <message>
        <source>position k of the row in g_idx order (act-order)</source>
        <translation>Position k der Zeile in g_idx-Reihenfolge (Act-Order)</translation>
    </message>
    <message>
        <source>Stored words %1–%2 of %3 holding group %4 · %5</source>
        <translation>Gespeicherte Wörter %1–%2 von %3 mit Gruppe %4 · %5</translation>
    </message>
    <message>
        <source>as the file holds them; %1</source>
        <translation>wie die Datei sie enthält; %1</translation>
    </message>
    <message>
        <source>as the file holds them; k is the position in g_idx order</source>
        <translation>wie die Datei sie enthält; k ist die Position in g_idx-Reihenfolge</translation>
    </message>
    <message>
        <source>%1 (stored %2)</source>
        <translation>%1 (gespeichert %2)</translation>
    </message>
    <message>
        <source>&lt;b&gt;Codes&lt;/b&gt;: not compared with the stored ones: these settings are not the weight&apos;s own (%1, %2 bits, %3, %4)</source>
        <translation>&lt;b&gt;Codes&lt;/b&gt;: nicht mit den gespeicherten verglichen: Diese Einstellungen sind nicht die des Gewichts (%1, %2 Bit, %3, %4)</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="198"/>
        <source>Row of the selected weight</source>
        <translation>Zeile des ausgewählten Gewichts</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="199"/>
        <source>Normal</source>
        <translation>Normalverteilt</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="200"/>
        <source>Normal with outliers</source>
        <translation>Normalverteilt mit Ausreißern</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="201"/>
        <source>Uniform</source>
        <translation>Gleichverteilt</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="202"/>
        <source>Laplace</source>
        <translation>Laplace</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="203"/>
        <source>&amp;Source:</source>
        <translation>&amp;Quelle:</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="208"/>
        <source>&amp;Row:</source>
        <translation>&amp;Zeile:</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="215"/>
        <source>S&amp;eed:</source>
        <translation>S&amp;eed:</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="223"/>
        <source>&amp;Length:</source>
        <translation>&amp;Länge:</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="233"/>
        <source>&amp;Format:</source>
        <translation>&amp;Format:</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="239"/>
        <source>&amp;Bits:</source>
        <translation>&amp;Bits:</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="244"/>
        <location filename="../widgets/views/playgroundview.cpp" line="904"/>
        <source>whole row</source>
        <translation>ganze Zeile</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="246"/>
        <source>&amp;Group size:</source>
        <translation>&amp;Gruppengröße:</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="248"/>
        <source>S&amp;ymmetric</source>
        <translation>S&amp;ymmetrisch</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="262"/>
        <source>&amp;Clipping:</source>
        <translation>&amp;Clipping:</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="270"/>
        <source>&amp;Inspect group:</source>
        <translation>Gruppe &amp;ansehen:</translation>
    </message>
    <message>
        <source>&amp;Inspect block:</source>
        <translation>Block &amp;ansehen:</translation>
    </message>
    <message>
        <source>&amp;Inspect sub-block:</source>
        <translation>Unterblock &amp;ansehen:</translation>
    </message>
    <message>
        <source>Bl&amp;ock size:</source>
        <translation>Bl&amp;ockgröße:</translation>
    </message>
    <message>
        <source>&amp;Nested absmax</source>
        <translation>Absmax ver&amp;schachtelt</translation>
    </message>
    <message>
        <source>Double quantization: each block&apos;s absmax stored as an 8-bit code, with a second-level scale per 256 blocks and an offset (their mean)</source>
        <translation>Doppelte Quantisierung: das Absmax jedes Blocks als 8-Bit-Code, mit einer Skala zweiter Stufe je 256 Blöcke und einem Versatz (ihrem Mittelwert)</translation>
    </message>
    <message>
        <source>%1 · blocks of %2%3 · %4</source>
        <translation>%1 · Blöcke zu %2%3 · %4</translation>
    </message>
    <message>
        <source>, nested absmax</source>
        <translation>, Absmax verschachtelt</translation>
    </message>
    <message>
        <source>code %1 → %2</source>
        <translation>Code %1 → %2</translation>
    </message>
    <message>
        <source>second-level scale %1 = %2</source>
        <translation>Skala zweiter Stufe %1 = %2</translation>
    </message>
    <message>
        <source>offset = %1</source>
        <translation>Versatz = %1</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="489"/>
        <source>Select a weight in the browser, or pick a synthetic source.</source>
        <translation>Ein Gewicht im Browser auswählen oder eine synthetische Quelle wählen.</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="493"/>
        <source>%1: no dequantizer for format %2; pick another weight or a synthetic source.</source>
        <translation>%1: kein Dequantisierer für das Format %2; ein anderes Gewicht oder eine synthetische Quelle wählen.</translation>
    </message>
    <message>
        <source>%1 has %2 rows of %3 values: there is no row to quantize; pick another weight or a synthetic source.</source>
        <translation>%1 hat %2 Zeilen mit %3 Werten: es gibt keine Zeile zu quantisieren; ein anderes Gewicht oder eine synthetische Quelle wählen.</translation>
    </message>
    <message>
        <source>%1: a row of %2 values is more than the playground quantizes (%3); pick a synthetic source.</source>
        <translation>%1: eine Zeile mit %2 Werten ist mehr, als die Spielwiese quantisiert (%3); eine synthetische Quelle wählen.</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="501"/>
        <source>Playground on %1, row %2</source>
        <translation>Spielwiese für %1, Zeile %2</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="528"/>
        <source>Quantizing %1 synthetic values</source>
        <translation>%1 synthetische Werte werden quantisiert</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="576"/>
        <location filename="../widgets/views/playgroundview.cpp" line="577"/>
        <source>n%1</source>
        <translation>n%1</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="628"/>
        <location filename="../widgets/views/playgroundview.cpp" line="711"/>
        <source>weight value w</source>
        <translation>Gewichtswert w</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="629"/>
        <source>code q</source>
        <translation>Code q</translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/views/playgroundview.cpp" line="648"/>
        <location filename="../widgets/views/playgroundview.cpp" line="651"/>
        <source>%n clamped</source>
        <translation>
            <numerusform>%n begrenzt</numerusform>
            <numerusform>%n begrenzt</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="685"/>
        <source>min</source>
        <translation>min</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="686"/>
        <source>max</source>
        <translation>max</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="693"/>
        <source>Affine map · group %1 · s = %2 · b = %3</source>
        <translation>Affine Abbildung · Gruppe %1 · s = %2 · b = %3</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="694"/>
        <source>Affine map · group %1 · s = %2 · z = %3</source>
        <translation>Affine Abbildung · Gruppe %1 · s = %2 · z = %3</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="696"/>
        <source>q = clamp(round((w − b) / s)),  ŵ = s·q + b</source>
        <translation>q = clamp(round((w − b) / s)),  ŵ = s·q + b</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="696"/>
        <source>q = clamp(round(w / s) + z),  ŵ = s·(q − z)</source>
        <translation>q = clamp(round(w / s) + z),  ŵ = s·(q − z)</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="700"/>
        <source>w = 0 → q = %1</source>
        <translation>w = 0 → q = %1</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="700"/>
        <source>zero z = %1</source>
        <translation>Nullpunkt z = %1</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="712"/>
        <source>values</source>
        <translation>Werte</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="713"/>
        <source>Buckets · %1 · %2 values · colour = code</source>
        <translation>Eimer · %1 · %2 Werte · Farbe = Code</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="769"/>
        <source>codes</source>
        <translation>Codes</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="783"/>
        <source>element k of the row</source>
        <translation>Element k der Zeile</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="784"/>
        <source>Codes and error along the row</source>
        <translation>Codes und Fehler entlang der Zeile</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="785"/>
        <source>error ŵ − w</source>
        <translation>Fehler ŵ − w</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="849"/>
        <source>Packed words: %1 cannot store this</source>
        <translation>Gepackte Wörter: %1 kann dies nicht speichern</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="852"/>
        <source>Packed words</source>
        <translation>Gepackte Wörter</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="853"/>
        <source>no layout spec for %1</source>
        <translation>keine Layout-Spezifikation für %1</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="859"/>
        <source>Packed words %1–%2 of %3 holding group %4 · %5</source>
        <translation>Gepackte Wörter %1–%2 von %3 mit Gruppe %4 · %5</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="864"/>
        <source>AWQ packs column k of 8 output rows per word, nibbles in order n0 n2 n4 n6 n1 n3 n5 n7; the chosen row is outlined</source>
        <translation>AWQ packt Spalte k von 8 Ausgabezeilen je Wort, Nibbles in der Reihenfolge n0 n2 n4 n6 n1 n3 n5 n7; die gewählte Zeile ist umrandet</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="867"/>
        <source>%1-bit codes form one LSB-first bit stream: a code can straddle two words (·lo, ·hi)</source>
        <translation>%1-Bit-Codes bilden einen Bitstrom, LSB zuerst: ein Code kann über zwei Wörter reichen (·lo, ·hi)</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="870"/>
        <source>%1 codes per word, the top %2 bits stay zero</source>
        <translation>%1 Codes je Wort, die obersten %2 Bits bleiben null</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="872"/>
        <source>%1 codes per word, element k in slot k mod %1</source>
        <translation>%1 Codes je Wort, Element k in Slot k mod %1</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="884"/>
        <source>&lt;b&gt;Group %1&lt;/b&gt; (k %2–%3): values [%4, %5] · levels [%6, %7] · scale %8 · %9 %10 · clamped %11</source>
        <translation>&lt;b&gt;Gruppe %1&lt;/b&gt; (k %2–%3): Werte [%4, %5] · Stufen [%6, %7] · Skala %8 · %9 %10 · begrenzt %11</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="889"/>
        <source>bias</source>
        <translation>Bias</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="889"/>
        <source>zero</source>
        <translation>Nullpunkt</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="892"/>
        <source>&lt;b&gt;Row&lt;/b&gt;: RMSE %1 · max error %2 · SQNR %3 dB · %4</source>
        <translation>&lt;b&gt;Zeile&lt;/b&gt;: RMSE %1 · max. Fehler %2 · SQNR %3 dB · %4</translation>
    </message>
    <message numerus="yes">
        <source>%n group(s) of %1</source>
        <translation>
            <numerusform>%n Gruppe zu %1</numerusform>
            <numerusform>%n Gruppen zu %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n block(s) of %1</source>
        <translation>
            <numerusform>%n Block zu %1</numerusform>
            <numerusform>%n Blöcke zu %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n sub-block(s) of %1</source>
        <translation>
            <numerusform>%n Unterblock zu %1</numerusform>
            <numerusform>%n Unterblöcke zu %1</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="902"/>
        <source>Quantization playground</source>
        <translation>Quantisierungs-Spielwiese</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="904"/>
        <source>group %1</source>
        <translation>Gruppe %1</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="905"/>
        <source>%1 · %2 bits · %3 · %4 · clipping %5 · %6</source>
        <translation>%1 · %2 Bit · %3 · %4 · Clipping %5 · %6</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="908"/>
        <source>symmetric</source>
        <translation>symmetrisch</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="908"/>
        <source>asymmetric</source>
        <translation>asymmetrisch</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="910"/>
        <source>row %1 of %2</source>
        <translation>Zeile %1 von %2</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundview.cpp" line="911"/>
        <source>%1, seed %2, %3 values</source>
        <translation>%1, Seed %2, %3 Werte</translation>
    </message>
    <message>
        <source>Levels · %1 · %2</source>
        <translation>Stufen · %1 · %2</translation>
    </message>
    <message>
        <source>Packed bytes</source>
        <translation>Gepackte Bytes</translation>
    </message>
    <message>
        <source>Bytes %1–%2 of %3 holding %4 · %5</source>
        <translation>Bytes %1–%2 von %3 mit %4 · %5</translation>
    </message>
    <message>
        <source>block fields in their colours, then the codes; MSB left, as in the Bit map</source>
        <translation>Blockfelder in ihren Farben, dann die Codes; höchstwertiges Bit links, wie in der Bitkarte</translation>
    </message>
    <message>
        <source>two codes a byte, element 2i in the high nibble; MSB left, as in the Bit map</source>
        <translation>zwei Codes je Byte, Element 2i im oberen Nibble; höchstwertiges Bit links, wie in der Bitkarte</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; (k %2–%3): values [%4, %5] · levels [%6, %7] · clamped %8</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; (k %2–%3): Werte [%4, %5] · Stufen [%6, %7] · begrenzt %8</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>sub-block %1 of block %2</source>
        <translation>Unterblock %1 von Block %2</translation>
    </message>
    <message>
        <source>block %1</source>
        <translation>Block %1</translation>
    </message>
    <message>
        <source>sub-block scale %1 (× d = %2)</source>
        <translation>Unterblock-Skala %1 (× d = %2)</translation>
    </message>
    <message>
        <source>sub-block min %1 (× dmin = %2)</source>
        <translation>Unterblock-Minimum %1 (× dmin = %2)</translation>
    </message>
    <message>
        <source>%1 = %2</source>
        <translation>%1 = %2</translation>
    </message>
    <message>
        <source>&lt;b&gt;Block %1&lt;/b&gt;: %2</source>
        <translation>&lt;b&gt;Block %1&lt;/b&gt;: %2</translation>
    </message>
    <message>
        <source>sub-block scales %1</source>
        <translation>Unterblock-Skalen %1</translation>
    </message>
    <message>
        <source>mins %1</source>
        <translation>Minima %1</translation>
    </message>
    <message>
        <source>d·sc = %1</source>
        <translation>d·sc = %1</translation>
    </message>
    <message>
        <source>dmin·m = %1</source>
        <translation>dmin·m = %1</translation>
    </message>
</context>
<context>
    <name>qsw::PlaygroundWords</name>
    <message>
        <source>k%1 → word %2</source>
        <translation>k%1 → Wort %2</translation>
    </message>
    <message numerus="yes">
        <source>… %n more word(s)</source>
        <translation>
            <numerusform>… %n weiteres Wort</numerusform>
            <numerusform>… %n weitere Wörter</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundwords.cpp" line="118"/>
        <source>k%1</source>
        <translation>k%1</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundwords.cpp" line="120"/>
        <source>·lo</source>
        <translation>·lo</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundwords.cpp" line="120"/>
        <source>·hi</source>
        <translation>·hi</translation>
    </message>
    <message>
        <location filename="../widgets/views/playgroundwords.cpp" line="169"/>
        <source>word %1</source>
        <translation>Wort %1</translation>
    </message>
    <message>
        <source>byte %1</source>
        <translation>Byte %1</translation>
    </message>
    <message>
        <source>·hi of k%1</source>
        <translation>·hi von k%1</translation>
    </message>
    <message>
        <source>·hi of k%1–k%2</source>
        <translation>·hi von k%1–k%2</translation>
    </message>
    <message>
        <source>k%1 → byte %2</source>
        <translation>k%1 → Byte %2</translation>
    </message>
    <message>
        <source>·hi → word %1</source>
        <translation>·hi → Wort %1</translation>
    </message>
    <message>
        <source>·hi → byte %1</source>
        <translation>·hi → Byte %1</translation>
    </message>
    <message>
        <source>·hi → words %1–%2</source>
        <translation>·hi → Wörter %1–%2</translation>
    </message>
    <message>
        <source>·hi → bytes %1–%2</source>
        <translation>·hi → Bytes %1–%2</translation>
    </message>
</context>
<context>
    <name>qsw::ScaleHeatmap</name>
    <message>
        <source>■ NaN or Inf: %1 of %2 values; the first at group %3, row %4</source>
        <translation>■ NaN oder Inf: %1 von %2 Werten; der erste bei Gruppe %3, Zeile %4</translation>
    </message>
    <message>
        <location filename="../widgets/figures/scaleheatmap.cpp" line="21"/>
        <source>%1 (weight units)</source>
        <translation>%1 (Gewichtseinheiten)</translation>
    </message>
    <message>
        <location filename="../widgets/figures/scaleheatmap.cpp" line="26"/>
        <source>max |%1| per cell</source>
        <translation>max. |%1| pro Zelle</translation>
    </message>
    <message>
        <location filename="../widgets/figures/scaleheatmap.cpp" line="28"/>
        <source>min %1 per cell</source>
        <translation>min. %1 pro Zelle</translation>
    </message>
    <message>
        <location filename="../widgets/figures/scaleheatmap.cpp" line="30"/>
        <source>max %1 per cell</source>
        <translation>max. %1 pro Zelle</translation>
    </message>
    <message>
        <location filename="../widgets/figures/scaleheatmap.cpp" line="45"/>
        <source>group (input columns / %1)</source>
        <translation>Gruppe (Eingangsspalten / %1)</translation>
    </message>
    <message>
        <location filename="../widgets/figures/scaleheatmap.cpp" line="46"/>
        <source>group (act-order: columns by g_idx)</source>
        <translation>Gruppe (act-order: Spalten nach g_idx)</translation>
    </message>
    <message>
        <location filename="../widgets/figures/scaleheatmap.cpp" line="108"/>
        <source>output row</source>
        <translation>Ausgangszeile</translation>
    </message>
    <message>
        <location filename="../widgets/figures/scaleheatmap.cpp" line="107"/>
        <source>group</source>
        <translation>Gruppe</translation>
    </message>
</context>
<context>
    <name>qsw::ScalesView</name>
    <message>
        <source> · %1</source>
        <translation> · %1</translation>
    </message>
    <message>
        <source>%1, %2</source>
        <translation>%1, %2</translation>
    </message>
    <message>
        <location filename="../widgets/views/scalesview.cpp" line="40"/>
        <location filename="../widgets/views/scalesview.h" line="31"/>
        <source>Scales</source>
        <translation>Skalen</translation>
    </message>
    <message>
        <location filename="../widgets/views/scalesview.cpp" line="41"/>
        <source>Zeros / minimums</source>
        <translation>Nullpunkte / Minima</translation>
    </message>
    <message>
        <location filename="../widgets/views/scalesview.cpp" line="42"/>
        <source>Which per-group parameter the heatmap shows</source>
        <translation>Welchen Gruppenparameter die Heatmap zeigt</translation>
    </message>
    <message>
        <location filename="../widgets/views/scalesview.cpp" line="44"/>
        <source>Cell: max |value|</source>
        <translation>Zelle: max. |Wert|</translation>
    </message>
    <message>
        <location filename="../widgets/views/scalesview.cpp" line="45"/>
        <source>Cell: min</source>
        <translation>Zelle: Minimum</translation>
    </message>
    <message>
        <location filename="../widgets/views/scalesview.cpp" line="46"/>
        <source>Cell: max</source>
        <translation>Zelle: Maximum</translation>
    </message>
    <message>
        <location filename="../widgets/views/scalesview.cpp" line="47"/>
        <source>When the weight has more groups or rows than the plot has cells, each cell reduces the block it covers</source>
        <translation>Hat das Gewicht mehr Gruppen oder Zeilen als der Plot Zellen, fasst jede Zelle den überdeckten Block zusammen</translation>
    </message>
    <message>
        <location filename="../widgets/views/scalesview.cpp" line="49"/>
        <source>GGUF: block scales (d, dmin)</source>
        <translation>GGUF: Blockskalen (d, dmin)</translation>
    </message>
    <message>
        <location filename="../widgets/views/scalesview.cpp" line="50"/>
        <source>GGUF: sub-block scales (d × sc, dmin × m)</source>
        <translation>GGUF: Unterblockskalen (d × sc, dmin × m)</translation>
    </message>
    <message>
        <location filename="../widgets/views/scalesview.cpp" line="51"/>
        <source>k-quants store a super-block scale d and small integer scales per sub-block</source>
        <translation>k-Quants speichern eine Superblock-Skala d und kleine ganzzahlige Skalen pro Unterblock</translation>
    </message>
    <message>
        <location filename="../widgets/views/scalesview.cpp" line="88"/>
        <location filename="../widgets/views/scalesview.cpp" line="135"/>
        <source>Select a quantized weight to see its scales.</source>
        <translation>Wählen Sie ein quantisiertes Gewicht, um seine Skalen zu sehen.</translation>
    </message>
    <message>
        <location filename="../widgets/views/scalesview.cpp" line="140"/>
        <source>&lt;b&gt;%1&lt;/b&gt; · %2</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; · %2</translation>
    </message>
    <message>
        <location filename="../widgets/views/scalesview.cpp" line="141"/>
        <source>%1 is stored as %2: a float weight has no scales or zeros. Each element is its own value; see the bit map for its encoding.</source>
        <translation>%1 ist als %2 gespeichert: ein Gleitkomma-Gewicht hat keine Skalen oder Nullpunkte. Jedes Element ist sein eigener Wert; seine Kodierung zeigt die Bitkarte.</translation>
    </message>
    <message>
        <location filename="../widgets/views/scalesview.cpp" line="153"/>
        <source>Reading the scales of %1…</source>
        <translation>Lese die Skalen von %1…</translation>
    </message>
    <message>
        <location filename="../widgets/views/scalesview.cpp" line="155"/>
        <source>Reading scales of %1</source>
        <translation>Skalen von %1 lesen</translation>
    </message>
    <message>
        <location filename="../widgets/views/scalesview.cpp" line="178"/>
        <source>one per %1 input columns</source>
        <translation>eine pro %1 Eingangsspalten</translation>
    </message>
    <message>
        <location filename="../widgets/views/scalesview.cpp" line="179"/>
        <source>one per group of %1 input columns, columns assigned by g_idx (act-order)</source>
        <translation>eine pro Gruppe von %1 Eingangsspalten, Spalten nach g_idx zugeordnet (act-order)</translation>
    </message>
    <message>
        <location filename="../widgets/views/scalesview.cpp" line="180"/>
        <source>Showing %1 (%2)</source>
        <translation>Gezeigt: %1 (%2)</translation>
    </message>
    <message>
        <location filename="../widgets/views/scalesview.cpp" line="182"/>
        <source> and %1</source>
        <translation> und %1</translation>
    </message>
    <message>
        <location filename="../widgets/views/scalesview.cpp" line="183"/>
        <source>&lt;b&gt;%1&lt;/b&gt; · %2 · %3 rows × %4 groups&lt;br&gt;%5.</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; · %2 · %3 Zeilen × %4 Gruppen&lt;br&gt;%5.</translation>
    </message>
    <message>
        <location filename="../widgets/views/scalesview.cpp" line="272"/>
        <source>group %1, row %2
scale %3</source>
        <translation>Gruppe %1, Zeile %2
Skala %3</translation>
    </message>
    <message>
        <location filename="../widgets/views/scalesview.cpp" line="274"/>
        <source>
%1 %2</source>
        <translation>
%1 %2</translation>
    </message>
    <message>
        <location filename="../widgets/views/scalesview.cpp" line="277"/>
        <source>
first column %1</source>
        <translation>
erste Spalte %1</translation>
    </message>
    <message>
        <source> Decimated: each cell covers %1 × %2.</source>
        <translation> Ausgedünnt: Jede Zelle umfasst %1 × %2.</translation>
    </message>
    <message numerus="yes">
        <source>%Ln group(s)</source>
        <translation>
            <numerusform>%Ln Gruppe</numerusform>
            <numerusform>%Ln Gruppen</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln row(s)</source>
        <translation>
            <numerusform>%Ln Zeile</numerusform>
            <numerusform>%Ln Zeilen</numerusform>
        </translation>
    </message>
    <message>
        <source>
cell (%1 × %2): %3</source>
        <translation>
Zelle (%1 × %2): %3</translation>
    </message>
</context>
<context>
    <name>qsw::SlotOrderView</name>
    <message>
        <location filename="../widgets/views/slotorderview.cpp" line="85"/>
        <source>Format:</source>
        <translation>Format:</translation>
    </message>
    <message>
        <location filename="../widgets/views/slotorderview.cpp" line="91"/>
        <source>Any registered layout; follows the selected weight</source>
        <translation>Jedes registrierte Layout; folgt dem ausgewählten Gewicht</translation>
    </message>
    <message>
        <location filename="../widgets/views/slotorderview.cpp" line="93"/>
        <source>Bits:</source>
        <translation>Bits:</translation>
    </message>
    <message>
        <location filename="../widgets/views/slotorderview.cpp" line="98"/>
        <source>Zoom:</source>
        <translation>Zoom:</translation>
    </message>
    <message>
        <location filename="../widgets/views/slotorderview.cpp" line="104"/>
        <source>Zoom</source>
        <translation>Zoom</translation>
    </message>
    <message>
        <location filename="../widgets/views/slotorderview.cpp" line="133"/>
        <source>Browsing %1 (not the selected weight&apos;s format).</source>
        <translation>Ansicht von %1 (nicht das Format des ausgewählten Gewichts).</translation>
    </message>
    <message>
        <location filename="../widgets/views/slotorderview.cpp" line="168"/>
        <source>%1 is %2: no packed layout. Pick a format to browse.</source>
        <translation>%1 ist %2: kein gepacktes Layout. Format zum Ansehen wählen.</translation>
    </message>
    <message>
        <location filename="../widgets/views/slotorderview.cpp" line="170"/>
        <source>Pick a format to browse its layout.</source>
        <translation>Format wählen, um sein Layout anzusehen.</translation>
    </message>
    <message>
        <location filename="../widgets/views/slotorderview.cpp" line="182"/>
        <source>%1: %2, [%3, %4], %5 bits%6</source>
        <translation>%1: %2, [%3, %4], %5 Bits%6</translation>
    </message>
    <message>
        <location filename="../widgets/views/slotorderview.cpp" line="187"/>
        <source>, group %1</source>
        <translation>, Gruppe %1</translation>
    </message>
    <message>
        <location filename="../widgets/views/slotorderview.cpp" line="108"/>
        <source>Fit</source>
        <translation>Einpassen</translation>
    </message>
    <message>
        <location filename="../widgets/views/slotorderview.cpp" line="109"/>
        <source>Scale the diagrams to fill the view</source>
        <translation>Die Diagramme auf die Ansicht skalieren</translation>
    </message>
</context>
<context>
    <name>qsw::TensorTableModel</name>
    <message>
        <location filename="../widgets/tablemodels.cpp" line="40"/>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <location filename="../widgets/tablemodels.cpp" line="92"/>
        <source>Tensor</source>
        <translation>Tensor</translation>
    </message>
    <message>
        <location filename="../widgets/tablemodels.cpp" line="93"/>
        <source>Type</source>
        <translation>Typ</translation>
    </message>
    <message>
        <location filename="../widgets/tablemodels.cpp" line="94"/>
        <source>Shape</source>
        <translation>Form</translation>
    </message>
    <message>
        <location filename="../widgets/tablemodels.cpp" line="95"/>
        <source>File</source>
        <translation>Datei</translation>
    </message>
    <message>
        <location filename="../widgets/tablemodels.cpp" line="96"/>
        <source>Offset</source>
        <translation>Offset</translation>
    </message>
    <message>
        <location filename="../widgets/tablemodels.cpp" line="97"/>
        <source>Bytes</source>
        <translation>Bytes</translation>
    </message>
    <message>
        <location filename="../widgets/tablemodels.cpp" line="98"/>
        <source>Logical weight (role)</source>
        <translation>Logisches Gewicht (Rolle)</translation>
    </message>
</context>
<context>
    <name>qsw::VerifyView</name>
    <message>
        <source>note</source>
        <translation>Hinweis</translation>
    </message>
    <message>
        <source>Nothing was checked, so this is not a pass: the note says why.</source>
        <translation>Nichts wurde geprüft, das ist also kein Bestehen: der Hinweis sagt, warum.</translation>
    </message>
    <message>
        <source>&amp;Refresh</source>
        <translation>&amp;Aktualisieren</translation>
    </message>
    <message>
        <source>Check every quantized weight again, as quantscope-cli verify does (the findings are kept until then, also when the same unchanged file is reloaded)</source>
        <translation>Jedes quantisierte Gewicht erneut prüfen, wie quantscope-cli verify es tut (bis dahin bleiben die Befunde, auch wenn dieselbe unveränderte Datei neu geladen wird)</translation>
    </message>
    <message>
        <source>Severity</source>
        <translation>Schwere</translation>
    </message>
    <message>
        <source>Weight</source>
        <translation>Gewicht</translation>
    </message>
    <message>
        <source>Check</source>
        <translation>Prüfung</translation>
    </message>
    <message>
        <source>Finding</source>
        <translation>Befund</translation>
    </message>
    <message>
        <source>Checks cancelled. Press “Refresh” to start them again.</source>
        <translation>Prüfungen abgebrochen. „Aktualisieren“ beginnt sie neu.</translation>
    </message>
    <message numerus="yes">
        <source>Checking %n weight(s)…</source>
        <translation>
            <numerusform>Prüfe %n Gewicht…</numerusform>
            <numerusform>Prüfe %n Gewichte…</numerusform>
        </translation>
    </message>
    <message>
        <source>Verifying %1</source>
        <translation>Prüfe %1</translation>
    </message>
    <message>
        <source>The checks run when this view is shown.</source>
        <translation>Die Prüfungen laufen, sobald diese Ansicht gezeigt wird.</translation>
    </message>
    <message>
        <source>Open a checkpoint to check its quantized weights.</source>
        <translation>Öffnen Sie einen Checkpoint, um seine quantisierten Gewichte zu prüfen.</translation>
    </message>
    <message>
        <source>warning</source>
        <translation>Warnung</translation>
    </message>
    <message>
        <source>error</source>
        <translation>Fehler</translation>
    </message>
    <message>
        <source>not checked</source>
        <translation>nicht geprüft</translation>
    </message>
    <message>
        <source>no check covers this format</source>
        <translation>keine Prüfung deckt dieses Format ab</translation>
    </message>
    <message numerus="yes">
        <source>%n weight(s) checked: </source>
        <translation>
            <numerusform>%n Gewicht geprüft: </numerusform>
            <numerusform>%n Gewichte geprüft: </numerusform>
        </translation>
    </message>
    <message>
        <source>no findings.</source>
        <translation>keine Befunde.</translation>
    </message>
    <message numerus="yes">
        <source> %n quantized weight(s) not covered by any check.</source>
        <translation>
            <numerusform> %n quantisiertes Gewicht wird von keiner Prüfung abgedeckt.</numerusform>
            <numerusform> %n quantisierte Gewichte werden von keiner Prüfung abgedeckt.</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 × %2</source>
        <translation>%1 × %2</translation>
    </message>
    <message>
        <source>none</source>
        <translation>keine</translation>
    </message>
    <message>
        <source>No quantized weight to check: nothing found.</source>
        <translation>Kein quantisiertes Gewicht zu prüfen: nichts gefunden.</translation>
    </message>
    <message numerus="yes">
        <source>Checked the layout, sizes, scales and codes of %n quantized weight(s) (%1): no errors, no warnings.</source>
        <translation>
            <numerusform>Layout, Größen, Skalen und Codes von %n quantisierten Gewicht geprüft (%1): keine Fehler, keine Warnungen.</numerusform>
            <numerusform>Layout, Größen, Skalen und Codes von %n quantisierten Gewichten geprüft (%1): keine Fehler, keine Warnungen.</numerusform>
        </translation>
    </message>
    <message>
        <source>Where</source>
        <translation>Wo</translation>
    </message>
    <message>
        <source>row %1, block %2</source>
        <translation>Zeile %1, Block %2</translation>
    </message>
    <message>
        <source>row %1, group %2</source>
        <translation>Zeile %1, Gruppe %2</translation>
    </message>
    <message>
        <source>row %1, column %2</source>
        <translation>Zeile %1, Spalte %2</translation>
    </message>
    <message>
        <source>row %1</source>
        <translation>Zeile %1</translation>
    </message>
    <message>
        <source>%1 (of %2)</source>
        <translation>%1 (von %2)</translation>
    </message>
    <message>
        <source>%1
Double-click to open it in the %2 view.</source>
        <translation>%1
Ein Doppelklick öffnet sie in der Ansicht %2.</translation>
    </message>
    <message>
        <source>Scales</source>
        <translation>Skalen</translation>
    </message>
    <message>
        <source>Bit map</source>
        <translation>Bitkarte</translation>
    </message>
    <message>
        <source> Click a finding to select its weight and place; double-click to open the place.</source>
        <translation> Ein Klick auf einen Befund wählt sein Gewicht und seine Stelle aus; ein Doppelklick öffnet die Stelle.</translation>
    </message>
    <message numerus="yes">
        <source>%Ln error(s)</source>
        <translation>
            <numerusform>%Ln Fehler</numerusform>
            <numerusform>%Ln Fehler</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln warning(s).</source>
        <translation>
            <numerusform>%Ln Warnung.</numerusform>
            <numerusform>%Ln Warnungen.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>qsw::ViewRow</name>
    <message>
        <source>Stored tensors</source>
        <translation>Gespeicherte Tensoren</translation>
    </message>
    <message>
        <source>Every tensor as the file stores it: type, shape, file, byte offset and size, and the logical weight it belongs to with its role (qweight, scales, qzeros, ...). Double-click a row to select its weight. Tensors of a type Quantscope cannot decode are listed in the error colour.</source>
        <translation>Jeder Tensor so, wie die Datei ihn speichert: Typ, Form, Datei, Byte-Offset und Größe sowie das logische Gewicht, zu dem er gehört, mit seiner Rolle (qweight, scales, qzeros, ...). Ein Doppelklick auf eine Zeile wählt ihr Gewicht aus. Tensoren eines Typs, den Quantscope nicht dekodieren kann, stehen in der Fehlerfarbe.</translation>
    </message>
    <message>
        <source>Metadata</source>
        <translation>Metadaten</translation>
    </message>
    <message>
        <source>The container&apos;s key/value pairs and the configs beside it. Nested JSON (quantization_config) and GGUF arrays open as a tree; a long array such as a vocabulary loads a page at a time as you scroll. general.file_type is shown by the name llama.cpp gives it.</source>
        <translation>Die Schlüssel/Wert-Paare des Containers und die Konfigurationen daneben. Verschachteltes JSON (quantization_config) und GGUF-Arrays öffnen sich als Baum; ein langes Array wie ein Vokabular lädt beim Blättern seitenweise. general.file_type erscheint mit dem Namen, den llama.cpp ihm gibt.</translation>
    </message>
    <message>
        <source>Bit map</source>
        <translation>Bitkarte</translation>
    </message>
    <message>
        <source>What each bit of each stored word of the selected weight means: every field of a word or GGUF block in the colour of its element. Hover a cell for the word, bit range, element, code, group, scale, zero and value; click to select the element in every view. Start here to see how a 4-bit code sits in a 32-bit word.</source>
        <translation>Was jedes Bit jedes gespeicherten Worts des gewählten Gewichts bedeutet: jedes Feld eines Worts oder GGUF-Blocks in der Farbe seines Elements. Über einer Zelle erscheinen Wort, Bitbereich, Element, Code, Gruppe, Skala, Nullpunkt und Wert; ein Klick wählt das Element in allen Ansichten aus. Beginnen Sie hier, um zu sehen, wie ein 4-Bit-Code in einem 32-Bit-Wort liegt.</translation>
    </message>
    <message>
        <source>Slot Order</source>
        <translation>Slot-Reihenfolge</translation>
    </message>
    <message>
        <source>Which logical element lands in which slot of a packed word or block: the interleaving that makes GPTQ, AWQ, Marlin and the GGUF k-quants differ although they store the same codes.</source>
        <translation>Welches logische Element in welchem Slot eines gepackten Worts oder Blocks landet: die Verschränkung, in der sich GPTQ, AWQ, Marlin und die GGUF-k-Quants unterscheiden, obwohl sie dieselben Codes speichern.</translation>
    </message>
    <message>
        <source>Scales</source>
        <translation>Skalen</translation>
    </message>
    <message>
        <source>The per-group scales (or zero points) as a heatmap, groups across and output rows down. Outlier rows and dead groups stand out; hover for the values, click to open the element in the bit map.</source>
        <translation>Die Skalen (oder Nullpunkte) je Gruppe als Heatmap, Gruppen waagerecht, Ausgabezeilen senkrecht. Ausreißerzeilen und tote Gruppen fallen auf; über einer Zelle erscheinen die Werte, ein Klick öffnet das Element in der Bitkarte.</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>Fehler</translation>
    </message>
    <message>
        <source>How far the stored values are from a float reference: a histogram of the error and its statistics per weight. Open the float checkpoint the quantized one was made from to see the real error; without one the view requantizes the weight to show what other formats would cost.</source>
        <translation>Wie weit die gespeicherten Werte von einer Gleitkomma-Referenz entfernt sind: ein Histogramm des Fehlers und seine Statistik je Gewicht. Öffnen Sie den Gleitkomma-Checkpoint, aus dem der quantisierte entstand, um den echten Fehler zu sehen; ohne ihn quantisiert die Ansicht das Gewicht neu und zeigt, was andere Formate kosten würden.</translation>
    </message>
    <message>
        <source>Budget</source>
        <translation>Budget</translation>
    </message>
    <message>
        <source>Bits per weight and memory of every format for a model of the size you choose, against your RAM or VRAM, with the KV cache and buffers of a context length and a GPU offload split. The open checkpoint is marked.</source>
        <translation>Bits pro Gewicht und Speicher jedes Formats für ein Modell der gewählten Größe, gemessen an Ihrem RAM oder VRAM, mit KV-Cache und Puffern für eine Kontextlänge und einer Aufteilung auf die GPU. Der geöffnete Checkpoint ist markiert.</translation>
    </message>
    <message>
        <source>Diff</source>
        <translation>Vergleich</translation>
    </message>
    <message>
        <source>The open checkpoint (A) against a second one (B), weight by weight, Hugging Face and GGUF names paired: a list worst first and a heatmap of |a − b| for the selected weight. Hover the heatmap for both values.</source>
        <translation>Der geöffnete Checkpoint (A) gegen einen zweiten (B), Gewicht für Gewicht, Hugging-Face- und GGUF-Namen gepaart: eine Liste, das Schlechteste zuerst, und eine Heatmap von |a − b| für das gewählte Gewicht. Über der Heatmap erscheinen beide Werte.</translation>
    </message>
    <message>
        <source>Recipe</source>
        <translation>Rezept</translation>
    </message>
    <message>
        <source>The type the file is labelled with (general.file_type or the quantization config) and every weight stored otherwise, with the reason: the mix llama-quantize or the quantizer chose.</source>
        <translation>Der Typ, mit dem die Datei beschriftet ist (general.file_type oder die Quantisierungskonfiguration), und jedes anders gespeicherte Gewicht mit dem Grund: die Mischung, die llama-quantize oder der Quantisierer gewählt hat.</translation>
    </message>
    <message>
        <source>Verify</source>
        <translation>Prüfen</translation>
    </message>
    <message>
        <source>Structural checks of every quantized weight, as quantscope-cli verify runs them: stored words against what the packers make of their fields, shapes, g_idx, plausible zero points, the config against the tensors; and a scan of every weight for NaN and Inf values, scales, zeros and absmax, all-zero weights, rows and blocks, and zero scales. Click a finding to select its weight and place in every view; double-click to open the place in the Bit map or Scales view.</source>
        <translation>Strukturprüfungen jedes quantisierten Gewichts, wie quantscope-cli verify sie ausführt: gespeicherte Wörter gegen das, was die Packer aus ihren Feldern machen, Formen, g_idx, plausible Nullpunkte, die Konfiguration gegen die Tensoren; dazu eine Suche in jedem Gewicht nach NaN und Inf in Werten, Skalen, Nullpunkten und absmax, nach ganz genullten Gewichten, Zeilen und Blöcken und nach Skalen null. Ein Klick auf einen Befund wählt sein Gewicht und seine Stelle in allen Ansichten aus; ein Doppelklick öffnet die Stelle in der Bitkarte oder der Skalenansicht.</translation>
    </message>
    <message>
        <source>Playground</source>
        <translation>Spielwiese</translation>
    </message>
    <message>
        <source>A row of real weights or a synthetic distribution, quantized and packed as a format does it: the bucket edges, code levels, scale and zero, the codes, the packed words and the error, updating as you change bits, group size and symmetry. Made for teaching what a quantizer does.</source>
        <translation>Eine Zeile echter Gewichte oder eine synthetische Verteilung, quantisiert und gepackt wie ein Format es tut: Intervallgrenzen, Code-Stufen, Skala und Nullpunkt, die Codes, die gepackten Wörter und der Fehler, laufend aktualisiert, während Sie Bits, Gruppengröße und Symmetrie ändern. Gemacht, um zu zeigen, was ein Quantisierer tut.</translation>
    </message>
</context>
<context>
    <name>qsw::WeightTreeModel</name>
    <message>
        <source>Verify found errors in this layer.</source>
        <translation>Die Prüfung hat Fehler in dieser Schicht gefunden.</translation>
    </message>
    <message>
        <source>Verify found errors in this weight: its findings are in the Verify view.</source>
        <translation>Die Prüfung hat Fehler in diesem Gewicht gefunden: die Befunde stehen in der Ansicht Prüfen.</translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/weighttreemodel.cpp" line="160"/>
        <source>%n weight(s) in %1</source>
        <translation>
            <numerusform>%n Gewicht in %1</numerusform>
            <numerusform>%n Gewichte in %1</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../widgets/weighttreemodel.cpp" line="228"/>
        <source>Logical shape [out_features, in_features]</source>
        <translation>Logische Form [out_features, in_features]</translation>
    </message>
    <message>
        <location filename="../widgets/weighttreemodel.cpp" line="229"/>
        <source>Bits per code (the float width for float formats)</source>
        <translation>Bits pro Code (bei Gleitkommaformaten deren Breite)</translation>
    </message>
    <message>
        <location filename="../widgets/weighttreemodel.cpp" line="230"/>
        <source>Weights sharing one scale along the input axis</source>
        <translation>Gewichte, die sich entlang der Eingangsachse eine Skala teilen</translation>
    </message>
    <message>
        <location filename="../widgets/weighttreemodel.cpp" line="231"/>
        <source>Effective bits per weight, counting every scale, zero, index and padding byte</source>
        <translation>Effektive Bits pro Gewicht, mit jeder Skala, jedem Nullpunkt, Index und Füllbyte</translation>
    </message>
    <message>
        <location filename="../widgets/weighttreemodel.cpp" line="232"/>
        <source>Bytes stored for this weight, all member tensors</source>
        <translation>Für dieses Gewicht gespeicherte Bytes, alle zugehörigen Tensoren</translation>
    </message>
    <message>
        <location filename="../widgets/weighttreemodel.cpp" line="237"/>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <location filename="../widgets/weighttreemodel.cpp" line="238"/>
        <source>Format</source>
        <translation>Format</translation>
    </message>
    <message>
        <location filename="../widgets/weighttreemodel.cpp" line="239"/>
        <source>Shape</source>
        <translation>Form</translation>
    </message>
    <message>
        <location filename="../widgets/weighttreemodel.cpp" line="242"/>
        <source>Bits/w</source>
        <translation>Bits/G</translation>
    </message>
    <message>
        <location filename="../widgets/weighttreemodel.cpp" line="240"/>
        <source>Bits</source>
        <translation>Bits</translation>
    </message>
    <message>
        <location filename="../widgets/weighttreemodel.cpp" line="241"/>
        <source>Group</source>
        <translation>Gruppe</translation>
    </message>
    <message>
        <location filename="../widgets/weighttreemodel.cpp" line="243"/>
        <source>Bytes</source>
        <translation>Bytes</translation>
    </message>
    <message numerus="yes">
        <source>%n of them with notes from detection</source>
        <translation>
            <numerusform>%n davon mit Anmerkungen der Erkennung</numerusform>
            <numerusform>%n davon mit Anmerkungen der Erkennung</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>qs::FamilyName</name>
    <message>
        <source>float</source>
        <translation>Gleitkomma</translation>
    </message>
    <message>
        <source>integer</source>
        <translation>Ganzzahl</translation>
    </message>
    <message>
        <source>GGUF</source>
        <translation>GGUF</translation>
    </message>
    <message>
        <source>GPTQ</source>
        <translation>GPTQ</translation>
    </message>
    <message>
        <source>AWQ</source>
        <translation>AWQ</translation>
    </message>
    <message>
        <source>compressed-tensors</source>
        <translation>compressed-tensors</translation>
    </message>
    <message>
        <source>MLX</source>
        <translation>MLX</translation>
    </message>
    <message>
        <source>HQQ</source>
        <translation>HQQ</translation>
    </message>
    <message>
        <source>EXL2</source>
        <translation>EXL2</translation>
    </message>
    <message>
        <source>optimum-quanto</source>
        <translation>optimum-quanto</translation>
    </message>
    <message>
        <source>AQLM</source>
        <translation>AQLM</translation>
    </message>
    <message>
        <source>bitsandbytes 4-bit</source>
        <translation>bitsandbytes 4 Bit</translation>
    </message>
    <message>
        <source>bitsandbytes int8</source>
        <translation>bitsandbytes int8</translation>
    </message>
    <message>
        <source>torchao</source>
        <translation>torchao</translation>
    </message>
    <message>
        <source>gpt-oss MXFP4</source>
        <translation>gpt-oss MXFP4</translation>
    </message>
    <message>
        <source>ModelOpt</source>
        <translation>ModelOpt</translation>
    </message>
</context>
<context>
    <name>qs::PlaygroundFormat</name>
    <message>
        <source>GPTQ v1</source>
        <translation>GPTQ v1</translation>
    </message>
    <message>
        <source>GPTQ v2</source>
        <translation>GPTQ v2</translation>
    </message>
    <message>
        <source>AWQ GEMM</source>
        <translation>AWQ GEMM</translation>
    </message>
    <message>
        <source>compressed-tensors</source>
        <translation>compressed-tensors</translation>
    </message>
    <message>
        <source>MLX affine</source>
        <translation>MLX affin</translation>
    </message>
</context>
<context>
    <name>qs::RequantizePreset</name>
    <message>
        <location filename="../core/formats/bnb/bnb_targets.cpp" line="138"/>
        <source>bitsandbytes NF4</source>
        <translation>bitsandbytes NF4</translation>
    </message>
    <message>
        <location filename="../core/formats/bnb/bnb_targets.cpp" line="139"/>
        <source>bitsandbytes FP4</source>
        <translation>bitsandbytes FP4</translation>
    </message>
    <message>
        <location filename="../core/formats/ggml/ggml_targets.cpp" line="127"/>
        <source>GGUF Q8_0</source>
        <translation>GGUF Q8_0</translation>
    </message>
    <message>
        <location filename="../core/formats/ggml/ggml_targets.cpp" line="128"/>
        <source>GGUF Q6_K</source>
        <translation>GGUF Q6_K</translation>
    </message>
    <message>
        <location filename="../core/formats/ggml/ggml_targets.cpp" line="129"/>
        <source>GGUF Q5_K</source>
        <translation>GGUF Q5_K</translation>
    </message>
    <message>
        <location filename="../core/formats/ggml/ggml_targets.cpp" line="130"/>
        <source>GGUF Q4_K</source>
        <translation>GGUF Q4_K</translation>
    </message>
    <message>
        <location filename="../core/formats/ggml/ggml_targets.cpp" line="131"/>
        <source>GGUF Q4_0</source>
        <translation>GGUF Q4_0</translation>
    </message>
    <message>
        <location filename="../core/formats/ggml/ggml_targets.cpp" line="132"/>
        <source>GGUF Q3_K</source>
        <translation>GGUF Q3_K</translation>
    </message>
    <message>
        <location filename="../core/formats/ggml/ggml_targets.cpp" line="133"/>
        <source>GGUF Q2_K</source>
        <translation>GGUF Q2_K</translation>
    </message>
    <message>
        <location filename="../core/formats/gptq/gptq_targets.cpp" line="232"/>
        <source>GPTQ 8-bit g128 sym</source>
        <translation>GPTQ 8 Bit g128 sym</translation>
    </message>
    <message>
        <location filename="../core/formats/gptq/gptq_targets.cpp" line="233"/>
        <source>GPTQ 4-bit g128 sym</source>
        <translation>GPTQ 4 Bit g128 sym</translation>
    </message>
    <message>
        <location filename="../core/formats/gptq/gptq_targets.cpp" line="234"/>
        <source>GPTQ 4-bit g32 sym</source>
        <translation>GPTQ 4 Bit g32 sym</translation>
    </message>
    <message>
        <location filename="../core/formats/gptq/gptq_targets.cpp" line="235"/>
        <source>GPTQ 3-bit g128 sym</source>
        <translation>GPTQ 3 Bit g128 sym</translation>
    </message>
    <message>
        <location filename="../core/formats/gptq/gptq_targets.cpp" line="236"/>
        <source>GPTQ 2-bit g64 asym</source>
        <translation>GPTQ 2 Bit g64 asym</translation>
    </message>
    <message>
        <location filename="../core/formats/gptq/gptq_targets.cpp" line="237"/>
        <source>AWQ 4-bit g128</source>
        <translation>AWQ 4 Bit g128</translation>
    </message>
    <message>
        <location filename="../core/formats/gptq/gptq_targets.cpp" line="238"/>
        <source>AWQ 4-bit g64</source>
        <translation>AWQ 4 Bit g64</translation>
    </message>
</context>
<context>
    <name>qsw::RecipeView</name>
    <message numerus="yes">
        <source>Summarizing the recipe of %n weight(s)…</source>
        <translation>
            <numerusform>Fasse das Rezept von %n Gewicht zusammen…</numerusform>
            <numerusform>Fasse das Rezept von %n Gewichten zusammen…</numerusform>
        </translation>
    </message>
    <message>
        <source>Summarizing the recipe</source>
        <translation>Rezept zusammenfassen</translation>
    </message>
    <message>
        <source>The grid shows the first %1 of %2 layers.</source>
        <translation>Das Raster zeigt die ersten %1 von %2 Schichten.</translation>
    </message>
    <message>
        <source>The grid shows the %1 roles with the most tensors of %2.</source>
        <translation>Das Raster zeigt von %2 Rollen die %1 mit den meisten Tensoren.</translation>
    </message>
    <message>
        <source>other</source>
        <translation>übrige</translation>
    </message>
    <message>
        <source>blk %1</source>
        <translation>Block %1</translation>
    </message>
    <message>
        <source>differs in B</source>
        <translation>anders in B</translation>
    </message>
    <message>
        <source>&lt;br&gt;%1 bytes against the nominal type</source>
        <translation>&lt;br&gt;%1 Bytes gegenüber dem Nenntyp</translation>
    </message>
    <message>
        <source>&lt;br&gt;B: %1</source>
        <translation>&lt;br&gt;B: %1</translation>
    </message>
    <message>
        <source>absent</source>
        <translation>fehlt</translation>
    </message>
    <message>
        <source>Compare with…</source>
        <translation>Vergleichen mit…</translation>
    </message>
    <message>
        <source>Clear</source>
        <translation>Leeren</translation>
    </message>
    <message>
        <source>Compare the recipe with</source>
        <translation>Rezept vergleichen mit</translation>
    </message>
    <message>
        <source>Checkpoints (*.gguf *.safetensors);;All files (*)</source>
        <translation>Checkpoints (*.gguf *.safetensors);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Opening %1…</source>
        <translation>%1 wird geöffnet…</translation>
    </message>
    <message>
        <source>Comparing the recipe with %1</source>
        <translation>Rezept wird mit %1 verglichen</translation>
    </message>
    <message>
        <source>Open a checkpoint to see its quantization recipe.</source>
        <translation>Einen Checkpoint öffnen, um sein Quantisierungsrezept zu sehen.</translation>
    </message>
    <message>
        <source>B: %1</source>
        <translation>B: %1</translation>
    </message>
    <message>
        <source>A: bits per weight</source>
        <translation>A: Bits pro Gewicht</translation>
    </message>
    <message>
        <source>B: bits per weight</source>
        <translation>B: Bits pro Gewicht</translation>
    </message>
    <message>
        <source>nominal %1</source>
        <translation>nominal %1</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>Schicht</translation>
    </message>
    <message>
        <source>bits per weight</source>
        <translation>Bits pro Gewicht</translation>
    </message>
    <message numerus="yes">
        <source>%n tensor(s) differ in type (outlined), %1 on both sides</source>
        <translation>
            <numerusform>%n Tensor hat einen anderen Typ (umrandet), %1 auf beiden Seiten</numerusform>
            <numerusform>%n Tensoren haben einen anderen Typ (umrandet), %1 auf beiden Seiten</numerusform>
        </translation>
    </message>
    <message>
        <source>Importance matrix…</source>
        <translation>Wichtigkeitsmatrix…</translation>
    </message>
    <message>
        <source>Weight</source>
        <translation>Gewicht</translation>
    </message>
    <message>
        <source>Channels</source>
        <translation>Kanäle</translation>
    </message>
    <message>
        <source>Mean</source>
        <translation>Mittel</translation>
    </message>
    <message>
        <source>Max / mean</source>
        <translation>Max. / Mittel</translation>
    </message>
    <message>
        <source>Imatrix</source>
        <translation>Imatrix</translation>
    </message>
    <message>
        <source>Open an importance matrix</source>
        <translation>Wichtigkeitsmatrix öffnen</translation>
    </message>
    <message>
        <source>Importance matrices (*.gguf *.dat);;All files (*)</source>
        <translation>Wichtigkeitsmatrizen (*.gguf *.dat);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Reading %1…</source>
        <translation>Lese %1…</translation>
    </message>
    <message>
        <source>Reading the importance matrix %1</source>
        <translation>Lese die Wichtigkeitsmatrix %1</translation>
    </message>
    <message numerus="yes">
        <source>Importance matrix %1 (%2, %n entries)</source>
        <translation>
            <numerusform>Wichtigkeitsmatrix %1 (%2, %n Eintrag)</numerusform>
            <numerusform>Wichtigkeitsmatrix %1 (%2, %n Einträge)</numerusform>
        </translation>
    </message>
    <message>
        <source>Fits %1 of %2 matrix weights; %3 with other lengths, %4 entries for no weight</source>
        <translation>Passt zu %1 von %2 Matrixgewichten; %3 mit anderen Längen, %4 Einträge ohne Gewicht</translation>
    </message>
    <message>
        <source>fits</source>
        <translation>passt</translation>
    </message>
    <message>
        <source>input channel</source>
        <translation>Eingangskanal</translation>
    </message>
    <message>
        <source>importance: mean x²</source>
        <translation>Wichtigkeit: Mittel x²</translation>
    </message>
</context>
<context>
    <name>qs::Message</name>
    <message>
        <source>%1: metadata key %2 appears %3 times: record %4 holds %5, record %6 holds %7, and so on; Quantscope uses the first, llama.cpp refuses the file (duplicate key), gguf-py warns and keeps them all</source>
        <translation>%1: Metadatenschlüssel %2 kommt %3-mal vor: Eintrag %4 enthält %5, Eintrag %6 enthält %7 und so weiter; Quantscope verwendet den ersten, llama.cpp lehnt die Datei ab (doppelter Schlüssel), gguf-py warnt und behält alle</translation>
    </message>
    <message>
        <source>%1: %2 more metadata records repeat a key that other keys&apos; notes do not name (only the first %3 repeated keys are named); lookups use each key&apos;s first record</source>
        <translation>%1: %2 weitere Metadateneinträge wiederholen einen Schlüssel, den die Hinweise zu anderen Schlüsseln nicht nennen (nur die ersten %3 wiederholten Schlüssel werden genannt); Abfragen verwenden jeweils den ersten Eintrag eines Schlüssels</translation>
    </message>
    <message>
        <source>%1: %2 is missing (needed for the memory budget)</source>
        <translation>%1: %2 fehlt (für das Speicherbudget nötig)</translation>
    </message>
    <message>
        <source>%1: %2 is not a non-negative integer (needed for the memory budget)</source>
        <translation>%1: %2 ist keine nichtnegative ganze Zahl (für das Speicherbudget nötig)</translation>
    </message>
    <message>
        <source>%1: %2 has %3 values for %4 layers (needed for the memory budget)</source>
        <translation>%1: %2 hat %3 Werte für %4 Schichten (für das Speicherbudget nötig)</translation>
    </message>
    <message>
        <source>%1: %2 holds a value that is not a non-negative integer (needed for the memory budget)</source>
        <translation>%1: %2 enthält einen Wert, der keine nichtnegative ganze Zahl ist (für das Speicherbudget nötig)</translation>
    </message>
    <message>
        <source>%1: %2 is 0 for layer 0 (needed for the memory budget)</source>
        <translation>%1: %2 ist 0 für Schicht 0 (für das Speicherbudget nötig)</translation>
    </message>
    <message>
        <source>%1 = %2 is out of range</source>
        <translation>%1 = %2 liegt außerhalb des zulässigen Bereichs</translation>
    </message>
    <message>
        <source>%1: the model has no blocks</source>
        <translation>%1: das Modell hat keine Blöcke</translation>
    </message>
    <message>
        <source>%1: zero key or value length</source>
        <translation>%1: Schlüssel- oder Wertlänge 0</translation>
    </message>
    <message>
        <source>config.json: %1 is missing (needed for the memory budget)</source>
        <translation>config.json: %1 fehlt (für das Speicherbudget nötig)</translation>
    </message>
    <message>
        <source>config.json: %1 is not a non-negative number (needed for the memory budget)</source>
        <translation>config.json: %1 ist keine nichtnegative Zahl (für das Speicherbudget nötig)</translation>
    </message>
    <message>
        <source>%1: general.architecture is missing (needed for the memory budget)</source>
        <translation>%1: general.architecture fehlt (für das Speicherbudget nötig)</translation>
    </message>
    <message>
        <source>%1: architecture &apos;%2&apos; is not one whose memory rules quantscope knows (%3)</source>
        <translation>%1: die Architektur „%2“ gehört nicht zu denen, deren Speicherregeln Quantscope kennt (%3)</translation>
    </message>
    <message>
        <source>%1: the vocabulary size is missing (%2, tokenizer.ggml.tokens or token_embd.weight; needed for the output buffer)</source>
        <translation>%1: die Vokabulargröße fehlt (%2, tokenizer.ggml.tokens oder token_embd.weight; für den Ausgabepuffer nötig)</translation>
    </message>
    <message>
        <source>no %1: converted before llama.cpp&apos;s MLA cache, so every head&apos;s K and V is cached</source>
        <translation>kein %1: vor llama.cpps MLA-Cache konvertiert, daher werden K und V jedes Kopfes gespeichert</translation>
    </message>
    <message>
        <source>llama.cpp disables Phi-3&apos;s sliding window: every layer caches the whole context</source>
        <translation>llama.cpp schaltet das gleitende Fenster von Phi-3 ab: jede Schicht speichert den ganzen Kontext</translation>
    </message>
    <message>
        <source>config.json: model_type is missing (needed for the memory budget)</source>
        <translation>config.json: model_type fehlt (für das Speicherbudget nötig)</translation>
    </message>
    <message>
        <source>config.json: model_type &apos;%1&apos; is not one whose memory rules quantscope knows</source>
        <translation>config.json: model_type „%1“ gehört nicht zu denen, deren Speicherregeln Quantscope kennt</translation>
    </message>
    <message>
        <source>config.json: num_attention_heads is 0</source>
        <translation>config.json: num_attention_heads ist 0</translation>
    </message>
    <message>
        <source>config.json: layer_types has %1 entries for %2 layers</source>
        <translation>config.json: layer_types hat %1 Einträge für %2 Schichten</translation>
    </message>
    <message>
        <source>config.json has sliding_window %1, but llama.cpp runs %2 with a full cache in every layer</source>
        <translation>config.json gibt sliding_window %1 an, aber llama.cpp führt %2 mit vollem Cache in jeder Schicht aus</translation>
    </message>
    <message>
        <source>%1: no config.json beside the checkpoint (needed for the memory budget)</source>
        <translation>%1: keine config.json neben dem Checkpoint (für das Speicherbudget nötig)</translation>
    </message>
    <message>
        <source>llama.cpp rounds the context %1 to %2 cells</source>
        <translation>llama.cpp rundet den Kontext %1 auf %2 Zellen</translation>
    </message>
    <message>
        <source>the context exceeds the trained %1 tokens</source>
        <translation>der Kontext überschreitet die trainierten %1 Tokens</translation>
    </message>
    <message>
        <source>the file holds no weights (%1 tensors): the weights count 0 bytes and the total is the cache and buffers alone</source>
        <translation>die Datei enthält keine Gewichte (%1 Tensoren): die Gewichte zählen 0 Bytes, die Summe ist nur Cache und Puffer</translation>
    </message>
    <message>
        <source>the file holds none of the %1 blocks its metadata names: the weights are this file&apos;s alone, the cache and buffers those of all %1 blocks</source>
        <translation>die Datei enthält keinen der %1 Blöcke, die ihre Metadaten nennen: die Gewichte sind nur die dieser Datei, Cache und Puffer die aller %1 Blöcke</translation>
    </message>
    <message>
        <source>the file holds the weights of %1 of the %2 blocks its metadata names (%3): the weights are this file&apos;s alone, the cache and buffers those of all %2 blocks</source>
        <translation>die Datei enthält die Gewichte von %1 der %2 Blöcke, die ihre Metadaten nennen (%3): die Gewichte sind nur die dieser Datei, Cache und Puffer die aller %2 Blöcke</translation>
    </message>
    <message>
        <source>cache type %1 stores blocks of %2 elements; layer %3&apos;s %4 row has %5</source>
        <translation>der Cache-Typ %1 speichert Blöcke zu %2 Elementen; die %4-Zeile von Schicht %3 hat %5</translation>
    </message>
    <message>
        <source>budget: the architecture has no layers</source>
        <translation>Budget: die Architektur hat keine Schichten</translation>
    </message>
    <message>
        <source>budget: the weights are split over %1 blocks, the model has %2</source>
        <translation>Budget: die Gewichte sind auf %1 Blöcke verteilt, das Modell hat %2</translation>
    </message>
    <message>
        <source>budget: the number of parallel sequences must be 1 .. 256</source>
        <translation>Budget: die Zahl paralleler Sequenzen muss 1 .. 256 sein</translation>
    </message>
    <message>
        <source>budget: the context must be 1 .. 2^26 tokens</source>
        <translation>Budget: der Kontext muss 1 .. 2^26 Tokens lang sein</translation>
    </message>
    <message>
        <source>budget: --gpu-layers must not be negative</source>
        <translation>Budget: --gpu-layers darf nicht negativ sein</translation>
    </message>
    <message>
        <source>budget: %1 is not a KV cache type llama.cpp accepts</source>
        <translation>Budget: %1 ist kein KV-Cache-Typ, den llama.cpp annimmt</translation>
    </message>
    <message>
        <source>budget: llama.cpp quantizes the V cache (%1) only with flash attention</source>
        <translation>Budget: llama.cpp quantisiert den V-Cache (%1) nur mit Flash Attention</translation>
    </message>
    <message>
        <source>budget: a context of %1 leaves no cells for each of %2 sequences</source>
        <translation>Budget: ein Kontext von %1 lässt keine Zellen für jede der %2 Sequenzen</translation>
    </message>
    <message>
        <source>scale</source>
        <translation>Skala</translation>
    </message>
    <message>
        <source>bias</source>
        <translation>Bias</translation>
    </message>
    <message>
        <source>bias (-scale x zero)</source>
        <translation>Bias (−Skala × Nullpunkt)</translation>
    </message>
    <message>
        <source>zero point (code units)</source>
        <translation>Nullpunkt (in Code-Einheiten)</translation>
    </message>
    <message>
        <source>tensor scale</source>
        <translation>Tensor-Skala</translation>
    </message>
    <message>
        <source>zero point (signed code units)</source>
        <translation>Nullpunkt (vorzeichenbehaftete Code-Einheiten)</translation>
    </message>
    <message>
        <source>absmax (nested: double-quantized)</source>
        <translation>absmax (verschachtelt: doppelt quantisiert)</translation>
    </message>
    <message>
        <source>absmax</source>
        <translation>absmax</translation>
    </message>
    <message>
        <source>%1 sub-block scale (d x (sc - 32))</source>
        <translation>%1-Unterblockskala (d × (sc − 32))</translation>
    </message>
    <message>
        <source>%1 sub-block scale (d x sc)</source>
        <translation>%1-Unterblockskala (d × sc)</translation>
    </message>
    <message>
        <source>%1 sub-block minimum (dmin x m)</source>
        <translation>%1-Unterblockminimum (dmin × m)</translation>
    </message>
    <message>
        <source>%1 block scale %2</source>
        <translation>%1-Blockskala %2</translation>
    </message>
    <message>
        <source>%1 block minimum %2</source>
        <translation>%1-Blockminimum %2</translation>
    </message>
    <message>
        <source>most parameters (no quantization config)</source>
        <translation>die meisten Parameter (keine Quantisierungskonfiguration)</translation>
    </message>
    <message>
        <source>most parameters; the config states no bits</source>
        <translation>die meisten Parameter; die Konfiguration nennt keine Bits</translation>
    </message>
    <message>
        <source>%1 %2-bit, group %3</source>
        <translation>%1 %2 Bit, Gruppe %3</translation>
    </message>
    <message>
        <source>%1 %2-bit</source>
        <translation>%1 %2 Bit</translation>
    </message>
    <message>
        <source>&apos;%1&apos; %2 %3 with absmax/quant_map/quant_state members (bitsandbytes 4-bit)</source>
        <translation>&apos;%1&apos; %2 %3 mit den Mitgliedern absmax/quant_map/quant_state (bitsandbytes 4-Bit)</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is not a JSON object: %2</source>
        <translation>&apos;%1&apos; ist kein JSON-Objekt: %2</translation>
    </message>
    <message>
        <source>quant_state JSON read</source>
        <translation>quant_state-JSON gelesen</translation>
    </message>
    <message>
        <source>quant_state says quant_type %1, its tensor name says %2</source>
        <translation>quant_state nennt quant_type %1, der Tensorname %2</translation>
    </message>
    <message>
        <source>bitsandbytes 4-bit quant_type unknown (&apos;%1&apos;)</source>
        <translation>bitsandbytes-4-Bit-quant_type unbekannt (&apos;%1&apos;)</translation>
    </message>
    <message>
        <source>config says bnb_4bit_quant_type %1, the stored quant_state says %2</source>
        <translation>Konfiguration nennt bnb_4bit_quant_type %1, der gespeicherte quant_state %2</translation>
    </message>
    <message>
        <source>nested_absmax absent but absmax is %1</source>
        <translation>nested_absmax fehlt, aber absmax ist %1</translation>
    </message>
    <message>
        <source>nested_absmax present but absmax is %1</source>
        <translation>nested_absmax vorhanden, aber absmax ist %1</translation>
    </message>
    <message>
        <source>nested_absmax present but absmax is absent</source>
        <translation>nested_absmax vorhanden, aber absmax fehlt</translation>
    </message>
    <message>
        <source>config says bnb_4bit_use_double_quant %1, the stored state is nested</source>
        <translation>Konfiguration nennt bnb_4bit_use_double_quant %1, der gespeicherte Zustand ist verschachtelt</translation>
    </message>
    <message>
        <source>config says bnb_4bit_use_double_quant %1, the stored state is not nested</source>
        <translation>Konfiguration nennt bnb_4bit_use_double_quant %1, der gespeicherte Zustand ist nicht verschachtelt</translation>
    </message>
    <message>
        <source>original shape unknown (quant_state has no shape): listed as a flat vector</source>
        <translation>ursprüngliche Form unbekannt (quant_state hat keine shape): als flacher Vektor aufgeführt</translation>
    </message>
    <message>
        <source>weight holds %1 bytes, %2 expected for %3</source>
        <translation>weight enthält %1 Bytes, für %3 erwartet: %2</translation>
    </message>
    <message>
        <source>absmax has %1 entries, %2 blocks expected</source>
        <translation>absmax hat %1 Einträge, erwartet: %2 Blöcke</translation>
    </message>
    <message>
        <source>shape refused: %1 %2 is not decoded: %3</source>
        <translation>Form abgelehnt: %1 %2 wird nicht dekodiert: %3</translation>
    </message>
    <message>
        <source>its element count overflows 64 bits</source>
        <translation>seine Elementanzahl sprengt 64 Bit</translation>
    </message>
    <message>
        <source>its dimensions overflow 64 bits</source>
        <translation>seine Dimensionen sprengen 64 Bit</translation>
    </message>
    <message>
        <source>it spans %1 elements, more than its %2 stored bytes can hold</source>
        <translation>es umfasst %1 Elemente, mehr als seine %2 gespeicherten Bytes fassen können</translation>
    </message>
    <message>
        <source>weight_shape %1 disagrees with weight_packed %2</source>
        <translation>weight_shape %1 passt nicht zu weight_packed %2</translation>
    </message>
    <message>
        <source>the HQQ shape tensor holds [%1], not two positive sizes</source>
        <translation>der HQQ-Tensor shape enthält [%1], nicht zwei positive Größen</translation>
    </message>
    <message>
        <source>weight I8 %1 + SCB %2 (LLM.int8)</source>
        <translation>weight I8 %1 + SCB %2 (LLM.int8)</translation>
    </message>
    <message>
        <source>SCB has %1 entries for %2 rows</source>
        <translation>SCB hat %1 Einträge für %2 Zeilen</translation>
    </message>
    <message>
        <source>%1: config_groups.%2 targets this module</source>
        <translation>%1: config_groups.%2 gilt für dieses Modul</translation>
    </message>
    <message>
        <source>weight_shape read: %1</source>
        <translation>weight_shape gelesen: %1</translation>
    </message>
    <message>
        <source>weight_packed U8 + weight_global_scale (NVFP4)</source>
        <translation>weight_packed U8 + weight_global_scale (NVFP4)</translation>
    </message>
    <message>
        <source>no weight_shape: K taken as the packed width</source>
        <translation>keine weight_shape: K als gepackte Breite angenommen</translation>
    </message>
    <message>
        <source>num_bits %1 from the config fits weight_packed %2</source>
        <translation>num_bits %1 aus der Konfiguration passt zu weight_packed %2</translation>
    </message>
    <message>
        <source>config says num_bits %1, but weight_packed %2 for K = %3 fits %4 bits</source>
        <translation>Konfiguration nennt num_bits %1, aber weight_packed %2 passt bei K = %3 zu %4 Bit</translation>
    </message>
    <message>
        <source>bits ambiguous from shapes (%1..%2 pack alike) and no config: %3 assumed</source>
        <translation>Bitbreite aus den Formen mehrdeutig (%1..%2 packen gleich) und keine Konfiguration: %3 angenommen</translation>
    </message>
    <message>
        <source>weight_packed %1 fits no bit width for K = %2</source>
        <translation>weight_packed %1 passt bei K = %2 zu keiner Bitbreite</translation>
    </message>
    <message>
        <source>config says group_size %1, weight_scale %2 gives %3</source>
        <translation>Konfiguration nennt group_size %1, weight_scale %2 ergibt %3</translation>
    </message>
    <message>
        <source>config says strategy %1, weight_scale %2 is %3</source>
        <translation>Konfiguration nennt strategy %1, weight_scale %2 ist %3</translation>
    </message>
    <message>
        <source>weight_zero_point %1 %2: asymmetric, %3</source>
        <translation>weight_zero_point %1 %2: asymmetrisch, %3</translation>
    </message>
    <message>
        <source>weight_zero_point %1 fits neither the packed nor the unpacked layout</source>
        <translation>weight_zero_point %1 passt weder zum gepackten noch zum ungepackten Layout</translation>
    </message>
    <message>
        <source>config says symmetric %1, but weight_zero_point is absent</source>
        <translation>Konfiguration nennt symmetric %1, aber weight_zero_point fehlt</translation>
    </message>
    <message>
        <source>config says symmetric %1, but weight_zero_point is present</source>
        <translation>Konfiguration nennt symmetric %1, aber weight_zero_point ist vorhanden</translation>
    </message>
    <message>
        <source>weight %1 + weight_scale_inv %2</source>
        <translation>weight %1 + weight_scale_inv %2</translation>
    </message>
    <message>
        <source>weight %1 + weight_scale %2</source>
        <translation>weight %1 + weight_scale %2</translation>
    </message>
    <message>
        <source>&apos;%1&apos; not read: %2 bytes is over the %3-byte limit for detection</source>
        <translation>&apos;%1&apos; nicht gelesen: %2 Bytes überschreiten die Grenze von %3 Bytes für die Erkennung</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is %2, expected an integer dtype</source>
        <translation>&apos;%1&apos; ist %2, erwartet wurde ein ganzzahliger Datentyp</translation>
    </message>
    <message>
        <source>&apos;%1&apos; has %2 entries for K = %3</source>
        <translation>&apos;%1&apos; hat %2 Einträge bei K = %3</translation>
    </message>
    <message>
        <source>group size unknown: act-order (g_idx) not checked</source>
        <translation>Gruppengröße unbekannt: Act-Order (g_idx) nicht geprüft</translation>
    </message>
    <message>
        <source>g_idx read: g_idx[k] == k / group_size for every k (sequential)</source>
        <translation>g_idx gelesen: g_idx[k] == k / group_size für jedes k (sequenziell)</translation>
    </message>
    <message>
        <source>g_idx read: non-trivial (act-order)</source>
        <translation>g_idx gelesen: nicht trivial (Act-Order)</translation>
    </message>
    <message>
        <source>%1 g_idx entries are not a group index (there are %2 groups)</source>
        <translation>%1 g_idx-Einträge sind kein Gruppenindex (es gibt %2 Gruppen)</translation>
    </message>
    <message>
        <source>config says desc_act true, but g_idx is sequential: no act-order in the stored data</source>
        <translation>Konfiguration nennt desc_act true, aber g_idx ist sequenziell: keine Act-Order in den gespeicherten Daten</translation>
    </message>
    <message>
        <source>g_idx is not sequential although desc_act is not set: act-order in the stored data</source>
        <translation>g_idx ist nicht sequenziell, obwohl desc_act nicht gesetzt ist: Act-Order in den gespeicherten Daten</translation>
    </message>
    <message>
        <source>member names %1 uses</source>
        <translation>Mitgliedsnamen, die %1 verwendet</translation>
    </message>
    <message>
        <source>row_groups</source>
        <translation>Zeilengruppen (row_groups)</translation>
    </message>
    <message>
        <source>code_bits_average</source>
        <translation>mittlere Codebits (code_bits_average)</translation>
    </message>
    <message>
        <source>q_groups do not describe q_weight: %1</source>
        <translation>q_groups beschreibt q_weight nicht: %1</translation>
    </message>
    <message>
        <source>config says quant_method %1, but the tensors are EXL2&apos;s</source>
        <translation>Konfiguration nennt quant_method %1, aber die Tensoren sind die von EXL2</translation>
    </message>
    <message>
        <source>q_weight %1 with q_groups and the row permutation (EXL2)</source>
        <translation>q_weight %1 mit q_groups und der Zeilenpermutation (EXL2)</translation>
    </message>
    <message>
        <source>q_perm is not the inverse of q_invperm (first at %1)</source>
        <translation>q_perm ist nicht die Umkehrung von q_invperm (zuerst bei %1)</translation>
    </message>
    <message>
        <source>%1 of %2 q_scale_max values are NaN or Inf</source>
        <translation>%1 von %2 q_scale_max-Werten sind NaN oder Inf</translation>
    </message>
    <message>
        <source>%1, %2 bits per weight on average (head %3)</source>
        <translation>%1, im Mittel %2 Bit pro Gewicht (Kopf %3)</translation>
    </message>
    <message>
        <source>%1, %2 bits per weight on average</source>
        <translation>%1, im Mittel %2 Bit pro Gewicht</translation>
    </message>
    <message>
        <source>%1 is named by detection only: not decoded</source>
        <translation>%1 wird von der Erkennung nur benannt: nicht dekodiert</translation>
    </message>
    <message>
        <source>logical shape unknown</source>
        <translation>logische Form unbekannt</translation>
    </message>
    <message>
        <source>dtype %1 is not decoded</source>
        <translation>Datentyp %1 wird nicht dekodiert</translation>
    </message>
    <message>
        <source>unquantized %1 tensor</source>
        <translation>unquantisierter %1-Tensor</translation>
    </message>
    <message>
        <source>stray member: &apos;%1&apos; looks like a member of a quantized weight, but its module has no matching codes</source>
        <translation>verirrtes Mitglied: &apos;%1&apos; sieht aus wie ein Mitglied eines quantisierten Gewichts, aber sein Modul hat keine passenden Codes</translation>
    </message>
    <message>
        <source>ggml type %1 (id %2) was removed from ggml: listed, not decoded</source>
        <translation>ggml-Typ %1 (ID %2) wurde aus ggml entfernt: aufgeführt, nicht dekodiert</translation>
    </message>
    <message>
        <source>unknown ggml type id %1: listed, not decoded</source>
        <translation>unbekannte ggml-Typ-ID %1: aufgeführt, nicht dekodiert</translation>
    </message>
    <message>
        <source>GGUF tensor type %1 (id %2)</source>
        <translation>GGUF-Tensortyp %1 (ID %2)</translation>
    </message>
    <message>
        <source>%1 is a dot-product intermediate, not a storage type</source>
        <translation>%1 ist ein Zwischenformat für Skalarprodukte, kein Speichertyp</translation>
    </message>
    <message>
        <source>qweight %1 %2, scales %3: qweight.cols == scales.cols (GPTQ, packed along K)</source>
        <translation>qweight %1 %2, scales %3: qweight.cols == scales.cols (GPTQ, entlang K gepackt)</translation>
    </message>
    <message>
        <source>K = %1 from the g_idx length</source>
        <translation>K = %1 aus der Länge von g_idx</translation>
    </message>
    <message>
        <source>K = %1 from scales rows x group_size</source>
        <translation>K = %1 aus Zeilen von scales x group_size</translation>
    </message>
    <message>
        <source>K = %1 from qweight rows and the configured bits</source>
        <translation>K = %1 aus den Zeilen von qweight und der konfigurierten Bitbreite</translation>
    </message>
    <message>
        <source>bits cannot be derived: qweight %1 for K = %2</source>
        <translation>Bitbreite nicht ableitbar: qweight %1 bei K = %2</translation>
    </message>
    <message>
        <source>config says bits %1, but qweight %2 for K = %3 holds %4-bit codes: %4 bits</source>
        <translation>Konfiguration nennt bits %1, aber qweight %2 enthält bei K = %3 %4-Bit-Codes: %4 Bit</translation>
    </message>
    <message>
        <source>qzeros %1 does not hold %2 %3-bit fields per group</source>
        <translation>qzeros %1 enthält nicht %2 %3-Bit-Felder je Gruppe</translation>
    </message>
    <message>
        <source>no qzeros: zero points cannot be checked</source>
        <translation>keine qzeros: Nullpunkte nicht prüfbar</translation>
    </message>
    <message>
        <source>config group_size %1 does not give %2 groups for K = %3</source>
        <translation>group_size %1 der Konfiguration ergibt bei K = %3 nicht %2 Gruppen</translation>
    </message>
    <message>
        <source>config says checkpoint_format %1, but the tensors have the plain GPTQ layout</source>
        <translation>Konfiguration nennt checkpoint_format %1, aber die Tensoren haben das einfache GPTQ-Layout</translation>
    </message>
    <message>
        <source>qzeros read: every field is %1 (%2)</source>
        <translation>qzeros gelesen: jedes Feld ist %1 (%2)</translation>
    </message>
    <message>
        <source>config says checkpoint_format %1, zeros read %2: %3</source>
        <translation>Konfiguration nennt checkpoint_format %1, gelesene Nullpunkte %2: %3</translation>
    </message>
    <message>
        <source>no checkpoint_format in the config (gptq assumed), zeros read %1: %2</source>
        <translation>kein checkpoint_format in der Konfiguration (gptq angenommen), gelesene Nullpunkte %1: %2</translation>
    </message>
    <message>
        <source>config says sym false: every zero field is %1, as symmetric %2 zeros would be; read as %3 by checkpoint_format</source>
        <translation>Konfiguration nennt sym false: jedes Nullpunktfeld ist %1, wie es symmetrische %2-Nullpunkte wären; nach checkpoint_format als %3 gelesen</translation>
    </message>
    <message>
        <source>zero convention: qzeros mix GPTQ v1 and v2 symmetric zeros: %1 fields are %2 (v1), %3 are %4 (v2); read as %5 by the label, so the other groups are off by one</source>
        <translation>Nullpunktkonvention: qzeros mischen symmetrische Nullpunkte von GPTQ v1 und v2: %1 Felder sind %2 (v1), %3 sind %4 (v2); nach der Angabe als %5 gelesen, die übrigen Gruppen liegen also um eins daneben</translation>
    </message>
    <message>
        <source>qzeros read: every zero field is %1 (asymmetric), so the label decides v1/v2</source>
        <translation>qzeros gelesen: jedes Nullpunktfeld ist %1 (asymmetrisch), daher entscheidet die Angabe über v1/v2</translation>
    </message>
    <message>
        <source>qzeros read: the zero fields vary (asymmetric), so the label decides v1/v2</source>
        <translation>qzeros gelesen: die Nullpunktfelder variieren (asymmetrisch), daher entscheidet die Angabe über v1/v2</translation>
    </message>
    <message>
        <source>config says sym true, but every zero field is %1: asymmetric</source>
        <translation>Konfiguration nennt sym true, aber jedes Nullpunktfeld ist %1: asymmetrisch</translation>
    </message>
    <message>
        <source>config says sym true, but the zero fields vary: asymmetric</source>
        <translation>Konfiguration nennt sym true, aber die Nullpunktfelder variieren: asymmetrisch</translation>
    </message>
    <message>
        <source>%1 of %2 zero fields equal %3 = 2^b-1: v1 cannot store zero point 0, so these are ambiguous or corrupt</source>
        <translation>%1 von %2 Nullpunktfeldern sind %3 = 2^b-1: v1 kann den Nullpunkt 0 nicht speichern, diese sind also mehrdeutig oder beschädigt</translation>
    </message>
    <message>
        <source>qweight %1, qzeros, scales %2: qweight.cols*8 == scales.cols, rows = K (AWQ GEMM, packed along N)</source>
        <translation>qweight %1, qzeros, scales %2: qweight.cols*8 == scales.cols, Zeilen = K (AWQ GEMM, entlang N gepackt)</translation>
    </message>
    <message>
        <source>qweight %1, scales %2: rows = N, scales.cols == 8*qzeros.cols (AWQ GEMV, packed along K)</source>
        <translation>qweight %1, scales %2: Zeilen = N, scales.cols == 8*qzeros.cols (AWQ GEMV, entlang K gepackt)</translation>
    </message>
    <message>
        <source>qweight I16 %1 (AWQ GEMV_FAST)</source>
        <translation>qweight I16 %1 (AWQ GEMV_FAST)</translation>
    </message>
    <message>
        <source>scales %1 do not have N = %2 columns</source>
        <translation>scales %1 haben nicht N = %2 Spalten</translation>
    </message>
    <message>
        <source>qweight %1 = [K/16, %2], no qzeros (AWQ Marlin tiles)</source>
        <translation>qweight %1 = [K/16, %2], keine qzeros (AWQ-Marlin-Kacheln)</translation>
    </message>
    <message>
        <source>num_codebooks</source>
        <translation>Anzahl der Codebooks (num_codebooks)</translation>
    </message>
    <message>
        <source>out_group_size</source>
        <translation>Ausgangsgruppengröße (out_group_size)</translation>
    </message>
    <message>
        <source>in_group_size</source>
        <translation>Eingangsgruppengröße (in_group_size)</translation>
    </message>
    <message>
        <source>config says %1 = %2, the AQLM tensors hold %3</source>
        <translation>Konfiguration nennt %1 = %2, die AQLM-Tensoren enthalten %3</translation>
    </message>
    <message>
        <source>AQLM codes and codebooks have %1 and %2 dimensions, not 3 and 4: logical shape unknown</source>
        <translation>AQLM-Codes und -Codebooks haben %1 und %2 Dimensionen, nicht 3 und 4: logische Form unbekannt</translation>
    </message>
    <message>
        <source>config says quant_method %1, but the tensors are AQLM codes and codebooks</source>
        <translation>Konfiguration nennt quant_method %1, aber die Tensoren sind AQLM-Codes und -Codebooks</translation>
    </message>
    <message>
        <source>codes + codebooks + scales (AQLM)</source>
        <translation>codes + codebooks + scales (AQLM)</translation>
    </message>
    <message>
        <source>codes are stored as %1; aqlm packs %2-bit indices as %3</source>
        <translation>Codes sind als %1 gespeichert; aqlm speichert %2-Bit-Indizes als %3</translation>
    </message>
    <message>
        <source>%1 of %2 codebook values are NaN or Inf</source>
        <translation>%1 von %2 Codebook-Werten sind NaN oder Inf</translation>
    </message>
    <message>
        <source>config says bits %1, the shapes give %2</source>
        <translation>Konfiguration nennt bits %1, die Formen ergeben %2</translation>
    </message>
    <message>
        <source>config says zero_point %1, but qzeros is absent</source>
        <translation>Konfiguration nennt zero_point %1, aber qzeros fehlt</translation>
    </message>
    <message>
        <source>config says zero_point %1, but qzeros is present</source>
        <translation>Konfiguration nennt zero_point %1, aber qzeros ist vorhanden</translation>
    </message>
    <message>
        <source>config says group_size %1, the shapes give %2</source>
        <translation>Konfiguration nennt group_size %1, die Formen ergeben %2</translation>
    </message>
    <message>
        <source>group size unknown: no config and the padded %1 layout does not tell</source>
        <translation>Gruppengröße unbekannt: keine Konfiguration, und das aufgefüllte %1-Layout verrät sie nicht</translation>
    </message>
    <message>
        <source>config says quant_method awq, but qweight %1 and scales %2 have the GPTQ layout (qweight.cols == scales.cols)</source>
        <translation>Konfiguration nennt quant_method awq, aber qweight %1 und scales %2 haben das GPTQ-Layout (qweight.cols == scales.cols)</translation>
    </message>
    <message>
        <source>config says quant_method gptq, but the shapes fit AWQ %1 (qweight %2, scales %3)</source>
        <translation>Konfiguration nennt quant_method gptq, aber die Formen passen zu AWQ %1 (qweight %2, scales %3)</translation>
    </message>
    <message>
        <source>config says version %1, but the shapes fit %2</source>
        <translation>Konfiguration nennt version %1, aber die Formen passen zu %2</translation>
    </message>
    <message>
        <source>B %1 = [K/16, %2], s %3 (Marlin tiles)</source>
        <translation>B %1 = [K/16, %2], s %3 (Marlin-Kacheln)</translation>
    </message>
    <message>
        <source>config says checkpoint_format %1, but the tensors are Marlin&apos;s B and s</source>
        <translation>Konfiguration nennt checkpoint_format %1, aber die Tensoren sind Marlins B und s</translation>
    </message>
    <message>
        <source>zero convention: this checkpoint mixes GPTQ v1 and v2 symmetric zeros (%1 weights v1, %2 v2); this one reads as %3 by its own zeros</source>
        <translation>Nullpunktkonvention: dieser Checkpoint mischt symmetrische Nullpunkte von GPTQ v1 und v2 (%1 Gewichte v1, %2 v2); dieses wird nach seinen eigenen Nullpunkten als %3 gelesen</translation>
    </message>
    <message>
        <source>%1 %2 %3 + weight._scale (optimum-quanto)</source>
        <translation>%1 %2 %3 + weight._scale (optimum-quanto)</translation>
    </message>
    <message>
        <source>quanto_qmap.json names %1 modules that have no tensors here: %2</source>
        <translation>quanto_qmap.json nennt %1 Module, die hier keine Tensoren haben: %2</translation>
    </message>
    <message>
        <source>weight._scale is missing: not decoded</source>
        <translation>weight._scale fehlt: nicht dekodiert</translation>
    </message>
    <message>
        <source>the bias holds %1 values: no quanto grouping of the %2 x %3 view gives them</source>
        <translation>der Bias enthält %1 Werte: keine quanto-Gruppierung der Ansicht %2 x %3 ergibt sie</translation>
    </message>
    <message>
        <source>shown as stored, %1 x %2: quanto groups a weight of more than 128 inputs in rows of %2, and its [out, in] is not in the file</source>
        <translation>wie gespeichert gezeigt, %1 x %2: quanto gruppiert ein Gewicht mit mehr als 128 Eingängen in Zeilen zu %2, und sein [out, in] steht nicht in der Datei</translation>
    </message>
    <message>
        <source>weight._data._data %1 %2 does not pack the %3 scales in 2 or 4 bits</source>
        <translation>weight._data._data %1 %2 packt die %3 Skalen weder in 2 noch in 4 Bit</translation>
    </message>
    <message>
        <source>weight._data._data I32 %1: Marlin-packed qfloat8, not decoded</source>
        <translation>weight._data._data I32 %1: Marlin-gepacktes qfloat8, nicht dekodiert</translation>
    </message>
    <message>
        <source>quanto_qmap.json says %1, the data is %2</source>
        <translation>quanto_qmap.json sagt %1, die Daten sind %2</translation>
    </message>
    <message>
        <source>weight._data is %1: not a quanto data dtype</source>
        <translation>weight._data ist %1: kein quanto-Datentyp</translation>
    </message>
    <message>
        <source>quanto_qmap.json says %1, the tensors hold %2</source>
        <translation>quanto_qmap.json sagt %1, die Tensoren enthalten %2</translation>
    </message>
    <message>
        <source>quanto_qmap.json: weights %1</source>
        <translation>quanto_qmap.json: weights %1</translation>
    </message>
    <message>
        <source>quanto_qmap.json has no entry for this module</source>
        <translation>quanto_qmap.json hat keinen Eintrag für dieses Modul</translation>
    </message>
    <message>
        <source>%1 packed fields past the last of the %2 rows are nonzero (optimum-quanto leaves them zero)</source>
        <translation>%1 gepackte Felder hinter der letzten der %2 Zeilen sind nicht null (optimum-quanto lässt sie null)</translation>
    </message>
    <message>
        <source>%1 of %2 weight._scale values are NaN or Inf</source>
        <translation>%1 von %2 Werten von weight._scale sind NaN oder Inf</translation>
    </message>
    <message>
        <source>%1 of %2 weight._shift values are NaN or Inf</source>
        <translation>%1 von %2 Werten von weight._shift sind NaN oder Inf</translation>
    </message>
    <message>
        <source>shift (subtracted after scaling)</source>
        <translation>Verschiebung (nach dem Skalieren abgezogen)</translation>
    </message>
    <message>
        <source>HQQ shape tensor missing: logical shape unknown</source>
        <translation>HQQ-shape-Tensor fehlt: logische Form unbekannt</translation>
    </message>
    <message>
        <source>W_q + scale/zero + HQQ meta tensors</source>
        <translation>W_q + scale/zero + HQQ-Metatensoren</translation>
    </message>
    <message>
        <source>biases %1 differ from scales %2</source>
        <translation>biases %1 weichen von scales %2 ab</translation>
    </message>
    <message>
        <source>config bits %1 / group_size %2 do not fit weight %3 and scales %4</source>
        <translation>bits %1 / group_size %2 der Konfiguration passen nicht zu weight %3 und scales %4</translation>
    </message>
    <message>
        <source>no MLX quantization config for this module: bits %1 and group_size %2 inferred from shapes (ambiguous: only bits x group_size is fixed)</source>
        <translation>keine MLX-Quantisierungskonfiguration für dieses Modul: bits %1 und group_size %2 aus den Formen erschlossen (mehrdeutig: nur bits x group_size steht fest)</translation>
    </message>
    <message>
        <source>weight U32 %1 + scales %2 + biases (MLX)</source>
        <translation>weight U32 %1 + scales %2 + biases (MLX)</translation>
    </message>
    <message>
        <source>weight U32 %1 + scales %2 (MLX)</source>
        <translation>weight U32 %1 + scales %2 (MLX)</translation>
    </message>
    <message>
        <source>%1: the stored layout is not the one the config declares</source>
        <translation>%1: das gespeicherte Layout ist nicht das, das die Konfiguration angibt</translation>
    </message>
    <message>
        <source>%1: codes are floats or table indices whose every bit pattern is valid (or the packing has no spare bits), so there is no round trip to compare; sizes and values checked</source>
        <translation>%1: die Codes sind Gleitkommazahlen oder Tabellenindizes, deren jedes Bitmuster gültig ist (oder die Packung hat keine freien Bits), es gibt also keinen Rundweg zum Vergleichen; Größen und Werte geprüft</translation>
    </message>
    <message>
        <source>the config says the input channels were permuted, but %1.input_perm is missing: the act-order permutation was dropped</source>
        <translation>die Konfiguration sagt, die Eingangskanäle seien permutiert, aber %1.input_perm fehlt: die Act-Order-Permutation ging verloren</translation>
    </message>
    <message>
        <source>%1.input_perm is not a permutation of the %2 input channels</source>
        <translation>%1.input_perm ist keine Permutation der %2 Eingangskanäle</translation>
    </message>
    <message>
        <source>tensor %1: &apos;%2&apos; looks like a member of a quantized weight, but its module has no matching codes (a member of a wrong shape or dtype, or a missing one, splits a quantized weight into plain tensors, which verify cannot check)</source>
        <translation>Tensor %1: &apos;%2&apos; sieht aus wie ein Mitglied eines quantisierten Gewichts, aber sein Modul hat keine passenden Codes (ein Mitglied falscher Form oder falschen Datentyps oder ein fehlendes zerlegt ein quantisiertes Gewicht in einfache Tensoren, die verify nicht prüfen kann)</translation>
    </message>
    <message>
        <source>tensor %1 belongs to no weight that detection found</source>
        <translation>Tensor %1 gehört zu keinem Gewicht, das die Erkennung gefunden hat</translation>
    </message>
    <message>
        <source>no weight was checked: the checkpoint holds no tensors (metadata only, e.g. a vocabulary file), so verify cannot vouch for anything</source>
        <translation>kein Gewicht geprüft: der Checkpoint enthält keine Tensoren (nur Metadaten, z. B. eine Vokabulardatei), verify kann also für nichts bürgen</translation>
    </message>
    <message>
        <source>no weight was checked: the checkpoint holds no tensors (metadata only, e.g. a vocabulary file) of a format verify covers, so verify cannot vouch for anything</source>
        <translation>kein Gewicht geprüft: der Checkpoint enthält keine Tensoren (nur Metadaten, z. B. eine Vokabulardatei) eines Formats, das verify abdeckt, verify kann also für nichts bürgen</translation>
    </message>
    <message>
        <source>no weight was checked: the checkpoint holds tensors (%1) but no quantized weight, so verify cannot vouch for anything</source>
        <translation>kein Gewicht geprüft: der Checkpoint enthält Tensoren (%1), aber kein quantisiertes Gewicht, verify kann also für nichts bürgen</translation>
    </message>
    <message>
        <source>no weight was checked: the checkpoint holds tensors (%1) but no quantized weight of a format verify covers, so verify cannot vouch for anything</source>
        <translation>kein Gewicht geprüft: der Checkpoint enthält Tensoren (%1), aber kein quantisiertes Gewicht eines Formats, das verify abdeckt, verify kann also für nichts bürgen</translation>
    </message>
    <message>
        <source>stored 4-bit codes differ from their repacking (nonzero padding or sign-extended fields?): %1</source>
        <translation>gespeicherte 4-Bit-Codes weichen von ihrer Neupackung ab (Auffüllung ungleich null oder vorzeichenerweiterte Felder?): %1</translation>
    </message>
    <message>
        <source>%1 block absmax values are negative</source>
        <translation>%1 absmax-Werte von Blöcken sind negativ</translation>
    </message>
    <message>
        <source>nested_offset is NaN or Inf</source>
        <translation>nested_offset ist NaN oder Inf</translation>
    </message>
    <message>
        <source>%1 holds %2 values, bitsandbytes&apos; FP4 table has %3</source>
        <translation>%1 enthält %2 Werte, die FP4-Tabelle von bitsandbytes hat %3</translation>
    </message>
    <message>
        <source>%1[%2] is %3, bitsandbytes&apos; FP4 table says %4</source>
        <translation>%1[%2] ist %3, die FP4-Tabelle von bitsandbytes sagt %4</translation>
    </message>
    <message>
        <source>%1 holds %2 values, bitsandbytes&apos; NF4 table has %3</source>
        <translation>%1 enthält %2 Werte, die NF4-Tabelle von bitsandbytes hat %3</translation>
    </message>
    <message>
        <source>%1[%2] is %3, bitsandbytes&apos; NF4 table says %4</source>
        <translation>%1[%2] ist %3, die NF4-Tabelle von bitsandbytes sagt %4</translation>
    </message>
    <message>
        <source>%1 holds %2 values, the signed dynamic map has %3</source>
        <translation>%1 enthält %2 Werte, die vorzeichenbehaftete dynamische Tabelle hat %3</translation>
    </message>
    <message>
        <source>%1[%2] is %3, the signed dynamic map says %4</source>
        <translation>%1[%2] ist %3, die vorzeichenbehaftete dynamische Tabelle sagt %4</translation>
    </message>
    <message>
        <source>%1 of %2 row absmax values (SCB) are NaN or Inf</source>
        <translation>%1 von %2 absmax-Werten der Zeilen (SCB) sind NaN oder Inf</translation>
    </message>
    <message>
        <source>%1 SCB values are negative</source>
        <translation>%1 SCB-Werte sind negativ</translation>
    </message>
    <message>
        <source>%1 codes are -128: LLM.int8 rounds x * 127 / absmax, so codes lie in -127..127</source>
        <translation>%1 Codes sind -128: LLM.int8 rundet x * 127 / absmax, die Codes liegen also in -127..127</translation>
    </message>
    <message>
        <source>%1 scales are zero or negative (compressed-tensors clamps scales to eps)</source>
        <translation>%1 Skalen sind null oder negativ (compressed-tensors begrenzt Skalen nach unten auf eps)</translation>
    </message>
    <message>
        <source>stored weight_packed words differ from their repacking (nonzero padding or sign-extended fields?): %1</source>
        <translation>gespeicherte weight_packed-Wörter weichen von ihrer Neupackung ab (Auffüllung ungleich null oder vorzeichenerweiterte Felder?): %1</translation>
    </message>
    <message>
        <source>stored weight_zero_point words differ from their repacking (nonzero padding or sign-extended fields?): %1</source>
        <translation>gespeicherte weight_zero_point-Wörter weichen von ihrer Neupackung ab (Auffüllung ungleich null oder vorzeichenerweiterte Felder?): %1</translation>
    </message>
    <message>
        <source>every zero point is 0: the weight is symmetric data stored as asymmetric</source>
        <translation>jeder Nullpunkt ist 0: das Gewicht sind symmetrische Daten, asymmetrisch gespeichert</translation>
    </message>
    <message>
        <source>ggml type %1 has no block geometry</source>
        <translation>ggml-Typ %1 hat keine Blockgeometrie</translation>
    </message>
    <message>
        <source>ne0 = %1 is not a multiple of the %2 block (%3)</source>
        <translation>ne0 = %1 ist kein Vielfaches des %2-Blocks (%3)</translation>
    </message>
    <message>
        <source>the tensor holds %1 bytes, %2 blocks of %3 need %4</source>
        <translation>der Tensor enthält %1 Bytes, %2 Blöcke %3 brauchen %4</translation>
    </message>
    <message>
        <source>%1 of %2 block scales and mins are NaN or Inf</source>
        <translation>%1 von %2 Skalen und Minima der Blöcke sind NaN oder Inf</translation>
    </message>
    <message>
        <source>%1 Q8_0 codes are -128 (ggml writes -127..127)</source>
        <translation>%1 Q8_0-Codes sind -128 (ggml schreibt -127..127)</translation>
    </message>
    <message>
        <source>%1 of %2 scales are zero or negative (GPTQ/AWQ quantizers give positive scales)</source>
        <translation>%1 von %2 Skalen sind null oder negativ (GPTQ-/AWQ-Quantisierer liefern positive Skalen)</translation>
    </message>
    <message>
        <source>desc_act is true but g_idx is sequential: static groups, or the act-order permutation was dropped</source>
        <translation>desc_act ist true, aber g_idx ist sequenziell: statische Gruppen, oder die Act-Order-Permutation ging verloren</translation>
    </message>
    <message>
        <source>the decoded fields cannot be repacked: %1</source>
        <translation>die dekodierten Felder lassen sich nicht neu packen: %1</translation>
    </message>
    <message>
        <source>stored codes differ from their repacking (nonzero padding or sign-extended fields?): %1</source>
        <translation>gespeicherte Codes weichen von ihrer Neupackung ab (Auffüllung ungleich null oder vorzeichenerweiterte Felder?): %1</translation>
    </message>
    <message>
        <source>stored zeros differ from their repacking (nonzero padding or sign-extended fields?): %1</source>
        <translation>gespeicherte Nullpunkte weichen von ihrer Neupackung ab (Auffüllung ungleich null oder vorzeichenerweiterte Felder?): %1</translation>
    </message>
    <message>
        <source>stored scales (padding, order) differ from their repacking (nonzero padding or sign-extended fields?): %1</source>
        <translation>gespeicherte Skalen (Auffüllung, Reihenfolge) weichen von ihrer Neupackung ab (Auffüllung ungleich null oder vorzeichenerweiterte Felder?): %1</translation>
    </message>
    <message>
        <source>%1 zero fields hold 2^b-1: a v1 checkpoint stores z-1, so these are z = 0 written as -1 (upstream then ORs ones into the higher fields of the word)</source>
        <translation>%1 Nullpunktfelder enthalten 2^b-1: ein v1-Checkpoint speichert z-1, dies sind also z = 0, als -1 geschrieben (upstream verodert dann Einsen in die höheren Felder des Worts)</translation>
    </message>
    <message>
        <source>%1 fields of 2^b-1 are followed by other values in the same word: not the upstream -1 spill, a corrupt or sign-extended field</source>
        <translation>auf %1 Felder mit 2^b-1 folgen andere Werte im selben Wort: nicht der Überlauf von -1 wie upstream, sondern ein beschädigtes oder vorzeichenerweitertes Feld</translation>
    </message>
    <message>
        <source>checkpoint_format says %1 but the symmetric zero fields are those of %2: off by one, the v1/v2 convention is mixed</source>
        <translation>checkpoint_format nennt %1, aber die symmetrischen Nullpunktfelder sind die von %2: um eins daneben, die v1/v2-Konvention ist vermischt</translation>
    </message>
    <message>
        <source>%1 of %2 zero fields are %3, expected %4 for a symmetric %5 checkpoint: off by one, the v1/v2 convention looks mixed</source>
        <translation>%1 von %2 Nullpunktfeldern sind %3, erwartet %4 für einen symmetrischen %5-Checkpoint: um eins daneben, die v1/v2-Konvention wirkt vermischt</translation>
    </message>
    <message>
        <source>%1 zero fields of a symmetric checkpoint are not %2</source>
        <translation>%1 Nullpunktfelder eines symmetrischen Checkpoints sind nicht %2</translation>
    </message>
    <message>
        <source>stored weight words differ from their repacking (nonzero padding or sign-extended fields?): %1</source>
        <translation>gespeicherte weight-Wörter weichen von ihrer Neupackung ab (Auffüllung ungleich null oder vorzeichenerweiterte Felder?): %1</translation>
    </message>
    <message>
        <source>%1 groups have a zero scale but a nonzero bias (MLX clamps |scale| to 1e-7)</source>
        <translation>%1 Gruppen haben die Skala null, aber einen Bias ungleich null (MLX begrenzt |scale| nach unten auf 1e-7)</translation>
    </message>
    <message>
        <source>g_idx[%1] = %2 is not one of the %3 groups</source>
        <translation>g_idx[%1] = %2 ist keine der %3 Gruppen</translation>
    </message>
    <message>
        <source>group %1 has %2 channels, group size is %3</source>
        <translation>Gruppe %1 hat %2 Kanäle, die Gruppengröße ist %3</translation>
    </message>
    <message>
        <source>%1 is %2, the %3 layout gives %4 = %5</source>
        <translation>%1 ist %2, das %3-Layout ergibt %4 = %5</translation>
    </message>
    <message>
        <source>size %1 bytes, expected %2</source>
        <translation>Größe %1 Bytes, erwartet %2</translation>
    </message>
    <message>
        <source>word %1 is %2, repacked %3</source>
        <translation>Wort %1 ist %2, neu gepackt %3</translation>
    </message>
    <message>
        <source>byte %1 is %2, repacked %3</source>
        <translation>Byte %1 ist %2, neu gepackt %3</translation>
    </message>
    <message>
        <source>trailing bytes differ</source>
        <translation>die letzten Bytes weichen ab</translation>
    </message>
    <message>
        <source>Recipe:     no nominal type (no general.file_type or quantization config); %1 stored types</source>
        <translation>Rezept: kein Nenntyp (kein general.file_type und keine Quantisierungskonfiguration); %1 gespeicherte Typen</translation>
    </message>
    <message>
        <source>Recipe:     %1 (%2)</source>
        <translation>Rezept: %1 (%2)</translation>
    </message>
    <message>
        <source>Recipe:     %1 (%2): nominal %3 at %4 bits per weight</source>
        <translation>Rezept: %1 (%2): nominell %3 mit %4 Bits pro Gewicht</translation>
    </message>
    <message>
        <source>Recipe:     %1 (%2): nominal %3</source>
        <translation>Rezept: %1 (%2): nominell %3</translation>
    </message>
    <message>
        <source>Stored:     quantized weights: %1, at %2 bits per weight (%3% over the nominal); as the nominal type: %4; all weights: %5, at %6 bits per weight</source>
        <translation>Gespeichert: quantisierte Gewichte: %1, mit %2 Bits pro Gewicht (%3 % über dem Nennwert); im Nenntyp: %4; alle Gewichte: %5, mit %6 Bits pro Gewicht</translation>
    </message>
    <message>
        <source>Stored:     quantized weights: %1, at %2 bits per weight; as the nominal type: %3; all weights: %4, at %5 bits per weight</source>
        <translation>Gespeichert: quantisierte Gewichte: %1, mit %2 Bits pro Gewicht; im Nenntyp: %3; alle Gewichte: %4, mit %5 Bits pro Gewicht</translation>
    </message>
    <message>
        <source>Fell back:  quantized weights that did not fit the nominal type&apos;s block: %1 of %2, costing %3 bytes (%4 bits per weight)</source>
        <translation>Ausgewichen: quantisierte Gewichte, die nicht in den Block des Nenntyps passten: %1 von %2, Kosten %3 Bytes (%4 Bits pro Gewicht)</translation>
    </message>
    <message>
        <source>Otherwise:  %1 by the mix, %2 by per-module overrides, %3 unexplained</source>
        <translation>Sonst: %1 durch die Mischung, %2 durch Modulvorgaben, %3 ungeklärt</translation>
    </message>
    <message>
        <source>mode</source>
        <translation>Modus (mode)</translation>
    </message>
    <message>
        <source>ggml_type</source>
        <translation>ggml-Typ (ggml_type)</translation>
    </message>
    <message>
        <source>block_weights</source>
        <translation>Gewichte pro Block (block_weights)</translation>
    </message>
    <message>
        <source>block_bytes</source>
        <translation>Bytes pro Block (block_bytes)</translation>
    </message>
    <message>
        <source>blocksize</source>
        <translation>Blockgröße (blocksize)</translation>
    </message>
    <message>
        <source>quant_type</source>
        <translation>Quantisierungstyp (quant_type)</translation>
    </message>
    <message>
        <source>quant_storage</source>
        <translation>Speichertyp (quant_storage)</translation>
    </message>
    <message>
        <source>nested</source>
        <translation>verschachtelt (nested)</translation>
    </message>
    <message>
        <source>true</source>
        <translation>ja</translation>
    </message>
    <message>
        <source>false</source>
        <translation>nein</translation>
    </message>
    <message>
        <source>axis</source>
        <translation>Achse (axis)</translation>
    </message>
    <message>
        <source>packing</source>
        <translation>Packung (packing)</translation>
    </message>
    <message>
        <source>checkpoint_format</source>
        <translation>Checkpoint-Format (checkpoint_format)</translation>
    </message>
    <message>
        <source>zero_test</source>
        <translation>Nullpunkttest (zero_test)</translation>
    </message>
    <message>
        <source>v2 (every zero field is 2^(b-1))</source>
        <translation>v2 (jedes Nullpunktfeld ist 2^(b-1))</translation>
    </message>
    <message>
        <source>v1 (every zero field is 2^(b-1)-1)</source>
        <translation>v1 (jedes Nullpunktfeld ist 2^(b-1)-1)</translation>
    </message>
    <message>
        <source>ct_format</source>
        <translation>compressed-tensors-Format (ct_format)</translation>
    </message>
    <message>
        <source>strategy</source>
        <translation>Strategie (strategy)</translation>
    </message>
    <message>
        <source>channel</source>
        <translation>Kanal</translation>
    </message>
    <message>
        <source>group</source>
        <translation>Gruppe</translation>
    </message>
    <message>
        <source>tensor</source>
        <translation>Tensor</translation>
    </message>
    <message>
        <source>zero_point_layout</source>
        <translation>Nullpunkt-Layout (zero_point_layout)</translation>
    </message>
    <message>
        <source>packed</source>
        <translation>gepackt</translation>
    </message>
    <message>
        <source>unpacked</source>
        <translation>ungepackt</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>unbekannt</translation>
    </message>
    <message>
        <source>actorder</source>
        <translation>Act-Order (actorder)</translation>
    </message>
    <message>
        <source>block</source>
        <translation>Block (block)</translation>
    </message>
    <message>
        <source>version</source>
        <translation>Version (version)</translation>
    </message>
    <message>
        <source>zero_convention</source>
        <translation>Nullpunktkonvention (zero_convention)</translation>
    </message>
    <message>
        <source>mixed</source>
        <translation>gemischt</translation>
    </message>
    <message>
        <source>asymmetric: label trusted</source>
        <translation>asymmetrisch: der Angabe vertraut</translation>
    </message>
    <message>
        <source>v1_all_ones_fields</source>
        <translation>v1-Felder mit lauter Einsen (v1_all_ones_fields)</translation>
    </message>
    <message>
        <source>%1: metadata key %2 appears twice: record %3 holds %4, record %5 holds %6; Quantscope uses the first, llama.cpp refuses the file (duplicate key), gguf-py warns and keeps both</source>
        <translation>%1: Metadatenschlüssel %2 kommt zweimal vor: Eintrag %3 enthält %4, Eintrag %5 enthält %6; Quantscope verwendet den ersten, llama.cpp lehnt die Datei ab (doppelter Schlüssel), gguf-py warnt und behält beide</translation>
    </message>
    <message>
        <source>%1: metadata key %2: a bool value is neither 0 nor 1; read as true, as ggml does</source>
        <translation>%1: Metadatenschlüssel %2: ein bool-Wert ist weder 0 noch 1; wie in ggml als true gelesen</translation>
    </message>
    <message>
        <source>ggml type %1 (%2) was removed from ggml; not decoded; its extent is taken up to the next tensor or the end of the file (%3 bytes)</source>
        <translation>ggml-Typ %1 (%2) wurde aus ggml entfernt; nicht dekodiert; er reicht bis zum nächsten Tensor oder zum Dateiende (%3 Bytes)</translation>
    </message>
    <message>
        <source>ggml type id %1 is unknown; not decoded; its extent is taken up to the next tensor or the end of the file (%2 bytes)</source>
        <translation>ggml-Typ-ID %1 ist unbekannt; nicht dekodiert; er reicht bis zum nächsten Tensor oder zum Dateiende (%2 Bytes)</translation>
    </message>
    <message>
        <source>%1: tensor data is not packed in tensor-info order (first at tensor %2); ggml&apos;s own reader would refuse this file</source>
        <translation>%1: die Tensordaten liegen nicht in der Reihenfolge der Tensor-Infos (zuerst bei Tensor %2); ggmls eigener Leser würde diese Datei ablehnen</translation>
    </message>
    <message>
        <source>%1: __metadata__ &apos;%2&apos; = &apos;%3&apos; differs from &apos;%4&apos; in an earlier shard; the first is kept</source>
        <translation>%1: __metadata__ &apos;%2&apos; = &apos;%3&apos; weicht von &apos;%4&apos; in einem früheren Shard ab; der erste Wert gilt</translation>
    </message>
    <message>
        <source>%1: a tensor has an empty name</source>
        <translation>%1: ein Tensor hat einen leeren Namen</translation>
    </message>
    <message>
        <source>stored as a strided view of its storage (stride %1, where row-major order would be %2); listed, not decoded</source>
        <translation>als Ansicht mit eigenen Schrittweiten auf seinen Speicher abgelegt (Schrittweiten %1, zeilenweise wären es %2); aufgeführt, nicht dekodiert</translation>
    </message>
    <message>
        <source>%1: %2 values in data.pkl are neither tensors, numbers nor strings (tuples, bare storages); not listed</source>
        <translation>%1: %2 Werte in data.pkl sind weder Tensoren noch Zahlen noch Zeichenketten (Tupel, bloße Speicher); nicht aufgeführt</translation>
    </message>
    <message>
        <source>%1: several *.bin.index.json files; using %2</source>
        <translation>%1: mehrere *.bin.index.json-Dateien; verwendet wird %2</translation>
    </message>
    <message>
        <source>%1: header starts with whitespace, not &apos;{&apos; (the reference reader accepts this; stricter readers do not)</source>
        <translation>%1: der Header beginnt mit Leerraum statt mit &apos;{&apos; (der Referenzleser nimmt das hin, strengere Leser nicht)</translation>
    </message>
    <message>
        <source>%1: header is padded with whitespace other than spaces</source>
        <translation>%1: der Header ist mit anderem Leerraum als Leerzeichen aufgefüllt</translation>
    </message>
    <message>
        <source>%1: tensor field &apos;%2&apos; is not part of safetensors; ignored</source>
        <translation>%1: das Tensorfeld &apos;%2&apos; gehört nicht zu safetensors; ignoriert</translation>
    </message>
    <message>
        <source>%1: metadata.total_size is %2 but the tensors hold %3 bytes</source>
        <translation>%1: metadata.total_size ist %2, die Tensoren belegen aber %3 Bytes</translation>
    </message>
    <message>
        <source>%1: several *.safetensors.index.json files; using %2</source>
        <translation>%1: mehrere *.safetensors.index.json-Dateien; verwendet wird %2</translation>
    </message>
    <message>
        <source>%1: a JSON %2, not an object; ignored</source>
        <translation>%1: JSON vom Typ %2, kein Objekt; ignoriert</translation>
    </message>
    <message>
        <source>%1; ignored</source>
        <translation>%1; ignoriert</translation>
    </message>
    <message>
        <source>%1 of %2 values are NaN or Inf, the first at (row, column) %3</source>
        <translation>%1 von %2 Werten sind NaN oder Inf, der erste bei (Zeile, Spalte) %3</translation>
    </message>
    <message>
        <source>%1 of %2 block absmax values are NaN or Inf, the first at (row, block) %3</source>
        <translation>%1 von %2 Block-absmax-Werten sind NaN oder Inf, der erste bei (Zeile, Block) %3</translation>
    </message>
    <message>
        <source>%1 of %2 block scales are NaN or Inf, the first at (row, block) %3</source>
        <translation>%1 von %2 Blockskalen sind NaN oder Inf, die erste bei (Zeile, Block) %3</translation>
    </message>
    <message>
        <source>%1 of %2 scales are NaN or Inf, the first at (row, group) %3</source>
        <translation>%1 von %2 Skalen sind NaN oder Inf, die erste bei (Zeile, Gruppe) %3</translation>
    </message>
    <message>
        <source>%1 of %2 block minimums are NaN or Inf, the first at (row, block) %3</source>
        <translation>%1 von %2 Blockminima sind NaN oder Inf, das erste bei (Zeile, Block) %3</translation>
    </message>
    <message>
        <source>%1 of %2 zero points or biases are NaN or Inf, the first at (row, group) %3</source>
        <translation>%1 von %2 Nullpunkten oder Biases sind NaN oder Inf, der erste bei (Zeile, Gruppe) %3</translation>
    </message>
    <message>
        <source>all %1 values are zero: the layer computes nothing (a lost or never written tensor)</source>
        <translation>alle %1 Werte sind null: die Schicht berechnet nichts (ein verlorener oder nie geschriebener Tensor)</translation>
    </message>
    <message>
        <source>all %1 values are zero</source>
        <translation>alle %1 Werte sind null</translation>
    </message>
    <message>
        <source>%1 of %2 rows are all zero, the first %3</source>
        <translation>%1 von %2 Zeilen sind ganz null, die erste %3</translation>
    </message>
    <message>
        <source>the scales could not be read, so they were not checked: %1</source>
        <translation>die Skalen konnten nicht gelesen werden und wurden daher nicht geprüft: %1</translation>
    </message>
    <message>
        <source>%1 block(s) with a zero absmax, which zeros all their values, the first at (row, block) %2</source>
        <translation>%1 Block/Blöcke mit absmax null, das alle ihre Werte zu null macht, der erste bei (Zeile, Block) %2</translation>
    </message>
    <message>
        <source>%1 block(s) with a zero scale, which zeros all their values, the first at (row, block) %2</source>
        <translation>%1 Block/Blöcke mit Skala null, die alle ihre Werte zu null macht, der erste bei (Zeile, Block) %2</translation>
    </message>
    <message>
        <source>%1 group(s) with a zero scale, which zeros all their values, the first at (row, group) %2</source>
        <translation>%1 Gruppe(n) mit Skala null, die alle ihre Werte zu null macht, die erste bei (Zeile, Gruppe) %2</translation>
    </message>
    <message>
        <source>%1 all-zero block(s) of %2 values in rows that are not all zero, the first at (row, block) %3</source>
        <translation>%1 ganz genullte(r) Block/Blöcke aus %2 Werten in Zeilen, die nicht ganz null sind, der erste bei (Zeile, Block) %3</translation>
    </message>
    <message>
        <source>%1 all-zero group(s) of %2 columns in rows that are not all zero, the first at (row, group) %3</source>
        <translation>%1 ganz genullte Gruppe(n) aus %2 Spalten in Zeilen, die nicht ganz null sind, die erste bei (Zeile, Gruppe) %3</translation>
    </message>
    <message>
        <source>%1: the config does not describe the stored data, but reading it as declared gives the same values</source>
        <translation>%1: die Konfiguration beschreibt die gespeicherten Daten nicht, aber sie wie angegeben zu lesen ergibt dieselben Werte</translation>
    </message>
    <message>
        <source>ggml type id 36: the %1 bytes before the next tensor fit both BitNet&apos;s I2_S (%2 bytes for %3 weights) and IQ4_NL_4_4, which mainline ggml removed (%4): which one it is stays open; not decoded</source>
        <translation>ggml-Typ-ID 36: die %1 Bytes vor dem nächsten Tensor passen sowohl zu BitNets I2_S (%2 Bytes für %3 Gewichte) als auch zu IQ4_NL_4_4, das ggml entfernt hat (%4): welcher es ist, bleibt offen; nicht dekodiert</translation>
    </message>
    <message>
        <source>ggml type id 36 read as BitNet&apos;s I2_S (ternary codes, four a byte, then one f32 scale): %1 weights take %2 bytes by its size rule (weights / 4 + 32), which fill the %3 bytes before the next tensor; IQ4_NL_4_4, which mainline ggml gave id 36 and removed, would take %4. Not decoded: the order of the codes depends on the machine that quantized it (x86: 128 weights in 32 bytes, ARM: 64 in 16, or four rows interleaved) and the file does not say which</source>
        <translation>ggml-Typ-ID 36 als BitNets I2_S gelesen (ternäre Codes, vier je Byte, danach eine f32-Skala): %1 Gewichte belegen nach seiner Größenregel (Gewichte / 4 + 32) %2 Bytes, die die %3 Bytes vor dem nächsten Tensor füllen; IQ4_NL_4_4, dem ggml die ID 36 gab und das es entfernte, bräuchte %4. Nicht dekodiert: die Reihenfolge der Codes hängt vom Rechner ab, der quantisiert hat (x86: 128 Gewichte in 32 Bytes, ARM: 64 in 16, oder vier Zeilen verschränkt), und die Datei sagt nicht, welcher</translation>
    </message>
    <message>
        <source>ggml type id 36 fits no size rule: %1 bytes lie before the next tensor or the end of the file, BitNet&apos;s I2_S takes %2 for %3 weights and IQ4_NL_4_4, which mainline ggml removed, %4; not decoded</source>
        <translation>ggml-Typ-ID 36 passt zu keiner Größenregel: %1 Bytes liegen vor dem nächsten Tensor oder dem Dateiende, BitNets I2_S belegt %2 für %3 Gewichte und das von ggml entfernte IQ4_NL_4_4 %4; nicht dekodiert</translation>
    </message>
    <message>
        <source>ik_llama.cpp&apos;s type %1 (id %2): listed, not decoded; no size rule is checked for it, its extent is taken up to the next tensor or the end of the file (%3 bytes)</source>
        <translation>Typ %1 von ik_llama.cpp (ID %2): aufgeführt, nicht dekodiert; für ihn wird keine Größenregel geprüft, sein Umfang reicht bis zum nächsten Tensor oder zum Dateiende (%3 Bytes)</translation>
    </message>
    <message>
        <source>ik_llama.cpp&apos;s type %1 (id %2) does not fit its size rule: %3 rows of %4 weights take %5 bytes (ne[0] a multiple of %6, %7 bytes of blocks and %8 of row scale a row), %9 bytes lie before the next tensor or the end of the file; not decoded</source>
        <translation>Typ %1 von ik_llama.cpp (ID %2) passt nicht zu seiner Größenregel: %3 Zeilen zu %4 Gewichten belegen %5 Bytes (ne[0] ein Vielfaches von %6, je Zeile %7 Bytes Blöcke und %8 Bytes Zeilenskala), vor dem nächsten Tensor oder dem Dateiende liegen %9 Bytes; nicht dekodiert</translation>
    </message>
    <message>
        <source>ik_llama.cpp&apos;s type %1 (id %2): listed, not decoded; its %3 bytes follow ik_llama.cpp&apos;s row size (%4 rows of %5 bytes)</source>
        <translation>Typ %1 von ik_llama.cpp (ID %2): aufgeführt, nicht dekodiert; seine %3 Bytes folgen der Zeilengröße von ik_llama.cpp (%4 Zeilen zu %5 Bytes)</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is named like a member of a quantized weight but has no module name, which every format reads a weight by: listed as a plain tensor</source>
        <translation>&apos;%1&apos; heißt wie ein Mitglied eines quantisierten Gewichts, hat aber keinen Modulnamen, über den jedes Format ein Gewicht liest: als einfacher Tensor aufgeführt</translation>
    </message>
    <message>
        <source>&apos;%1&apos; sits at the top level beside &apos;%2&apos;, which is named like a member of a quantized weight: no format reads a weight without a module name; listed as a plain tensor</source>
        <translation>&apos;%1&apos; liegt auf oberster Ebene neben &apos;%2&apos;, das wie ein Mitglied eines quantisierten Gewichts heißt: kein Format liest ein Gewicht ohne Modulnamen; als einfacher Tensor aufgeführt</translation>
    </message>
    <message>
        <source>trellis %1 holds [%2, %3] weights, suh and svh say %4 x %5</source>
        <translation>trellis %1 enthält [%2, %3] Gewichte, suh und svh sagen %4 x %5</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is %2 %3, not the I16 [K/16, N/16, 16*bits] of EXL3</source>
        <translation>&apos;%1&apos; ist %2 %3, nicht das I16 [K/16, N/16, 16*bits] von EXL3</translation>
    </message>
    <message>
        <source>bits</source>
        <translation>Bits (bits)</translation>
    </message>
    <message>
        <source>codebook</source>
        <translation>Codebuch (codebook)</translation>
    </message>
    <message>
        <source>EXL3 trellis codes (%1 bits a weight, %2 codebook) in 16x16 tiles of a basis rotated by Hadamard transforms and the sign vectors suh and svh: named, not decoded; exllamav3 decodes them on the GPU only (CUDA and Triton kernels), so there is no CPU reference to check a decoder against</source>
        <translation>EXL3-Trellis-Codes (%1 Bit je Gewicht, Codebuch %2) in 16x16-Kacheln einer durch Hadamard-Transformationen und die Vorzeichenvektoren suh und svh gedrehten Basis: benannt, nicht dekodiert; exllamav3 dekodiert sie nur auf der GPU (CUDA- und Triton-Kernel), es gibt also keine CPU-Referenz, an der sich ein Decoder prüfen ließe</translation>
    </message>
    <message>
        <source>dtype</source>
        <translation>Datentyp (dtype)</translation>
    </message>
    <message>
        <source>qscheme</source>
        <translation>Schema (qscheme)</translation>
    </message>
    <message>
        <source>group_size</source>
        <translation>Gruppengröße (group_size)</translation>
    </message>
    <message>
        <source>scale_format</source>
        <translation>Skalenformat (scale_format)</translation>
    </message>
    <message>
        <source>symmetric</source>
        <translation>symmetrisch (symmetric)</translation>
    </message>
    <message>
        <source>quantization_config quant_method quark</source>
        <translation>quantization_config quant_method quark</translation>
    </message>
    <message>
        <source>AMD Quark export, weights %1 %2: named, not decoded; its codes are &apos;weight&apos; (%3 %4), their scales &apos;weight_scale&apos; (%5), zero points &apos;weight_zero_point&apos;</source>
        <translation>AMD-Quark-Export, Gewichte %1 %2: benannt, nicht dekodiert; seine Codes sind &apos;weight&apos; (%3 %4), ihre Skalen &apos;weight_scale&apos; (%5), Nullpunkte &apos;weight_zero_point&apos;</translation>
    </message>
    <message>
        <source>int4 codes two a byte with a scale and zero_point per group (fbgemm)</source>
        <translation>int4-Codes, zwei je Byte, mit scale und zero_point je Gruppe (fbgemm)</translation>
    </message>
    <message>
        <source>int4 codes tile-packed into a 4-D int32 qdata for tinygemm, scale and zero together in scale_and_zero</source>
        <translation>int4-Codes kachelweise in ein vierdimensionales int32-qdata für tinygemm gepackt, Skala und Nullpunkt zusammen in scale_and_zero</translation>
    </message>
    <message>
        <source>int4 codes eight to an int32 with a scale and zero_point per group</source>
        <translation>int4-Codes, acht je int32, mit scale und zero_point je Gruppe</translation>
    </message>
    <message>
        <source>int4 codes in a CPU kernel&apos;s own packing with scale_and_zero</source>
        <translation>int4-Codes in der eigenen Packung eines CPU-Kernels mit scale_and_zero</translation>
    </message>
    <message>
        <source>1- to 8-bit codes one a byte with a scale and zero_point per group</source>
        <translation>1- bis 8-Bit-Codes, einer je Byte, mit scale und zero_point je Gruppe</translation>
    </message>
    <message>
        <source>MX elements (FP8, FP6 or FP4) with an E8M0 scale per 32</source>
        <translation>MX-Elemente (FP8, FP6 oder FP4) mit einer E8M0-Skala je 32</translation>
    </message>
    <message>
        <source>FP4 E2M1 pairs with an FP8 E4M3 scale per 16 and a per-tensor scale</source>
        <translation>FP4-E2M1-Paare mit einer FP8-E4M3-Skala je 16 und einer Skala je Tensor</translation>
    </message>
    <message>
        <source>&apos;%1&apos; has no scale member</source>
        <translation>&apos;%1&apos; hat kein scale-Mitglied</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is %2, not %3</source>
        <translation>&apos;%1&apos; ist %2, nicht %3</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is a scalar</source>
        <translation>&apos;%1&apos; ist ein Skalar</translation>
    </message>
    <message>
        <source>scale &apos;%1&apos; %2 does not tile qdata &apos;%3&apos; %4</source>
        <translation>scale &apos;%1&apos; %2 kachelt qdata &apos;%3&apos; %4 nicht</translation>
    </message>
    <message>
        <source>block_size [%1] in the metadata, the scale &apos;%2&apos; %3 gives %4</source>
        <translation>block_size [%1] in den Metadaten, die Skala &apos;%2&apos; %3 ergibt %4</translation>
    </message>
    <message>
        <source>dtype %1 is not float32, float16 or bfloat16</source>
        <translation>dtype %1 ist nicht float32, float16 oder bfloat16</translation>
    </message>
    <message>
        <source>naming</source>
        <translation>Benennung (naming)</translation>
    </message>
    <message>
        <source>&apos;%1&apos; looks like the codes of a torchao tensor subclass, but the safetensors header has no torchao metadata for &apos;%2&apos; (tensor_names and its _type): its kind is unknown; named, not decoded</source>
        <translation>&apos;%1&apos; sieht wie die Codes einer torchao-Tensorunterklasse aus, aber der safetensors-Header hat keine torchao-Metadaten für &apos;%2&apos; (tensor_names und sein _type): seine Art ist unbekannt; benannt, nicht dekodiert</translation>
    </message>
    <message>
        <source>kind</source>
        <translation>Art (kind)</translation>
    </message>
    <message>
        <source>torchao metadata &apos;%1&apos;: _type %2</source>
        <translation>torchao-Metadaten &apos;%1&apos;: _type %2</translation>
    </message>
    <message>
        <source>its metadata lists %1, the file has no &apos;%2&apos; member</source>
        <translation>seine Metadaten nennen %1, die Datei hat kein Mitglied &apos;%2&apos;</translation>
    </message>
    <message>
        <source>torchao %1 &apos;%2&apos; refused: %3; named, not decoded</source>
        <translation>torchao-%1 &apos;%2&apos; abgelehnt: %3; benannt, nicht dekodiert</translation>
    </message>
    <message>
        <source>torchao %1 (%2): packed, named, not decoded</source>
        <translation>torchao-%1 (%2): gepackt, benannt, nicht dekodiert</translation>
    </message>
    <message>
        <source>torchao metadata gives &apos;%1&apos; the _type %2, which is not one of torchao&apos;s serialized subclasses; named, not decoded</source>
        <translation>torchao-Metadaten geben &apos;%1&apos; den _type %2, der keine der serialisierten Unterklassen von torchao ist; benannt, nicht dekodiert</translation>
    </message>
    <message>
        <source>%1 U8 %2 + %3 U8 %4 (MXFP4: E2M1 pairs, E8M0 per 32)</source>
        <translation>%1 U8 %2 + %3 U8 %4 (MXFP4: E2M1-Paare, E8M0 je 32)</translation>
    </message>
    <message>
        <source>config: quant_method mxfp4</source>
        <translation>Konfiguration: quant_method mxfp4</translation>
    </message>
    <message>
        <source>no quant_method mxfp4 in the config: detected from member names</source>
        <translation>kein quant_method mxfp4 in der Konfiguration: an den Mitgliedsnamen erkannt</translation>
    </message>
    <message>
        <source>%1 %2 and %3 %4 are not [..., N, K/32, 16] and [..., N, K/32]</source>
        <translation>%1 %2 und %3 %4 sind nicht [..., N, K/32, 16] und [..., N, K/32]</translation>
    </message>
    <message>
        <source>rows</source>
        <translation>Zeilen (rows)</translation>
    </message>
    <message>
        <source>gate and up interleaved as stored (gate 0::2, up 1::2)</source>
        <translation>gate und up verschränkt wie gespeichert (gate 0::2, up 1::2)</translation>
    </message>
    <message>
        <source>config.json says %1 = %2, %3 gives %4</source>
        <translation>config.json nennt %1 = %2, %3 ergibt %4</translation>
    </message>
    <message>
        <source>weight %1 %2 + weight_scale %3 %4 (ModelOpt %5)</source>
        <translation>weight %1 %2 + weight_scale %3 %4 (ModelOpt %5)</translation>
    </message>
    <message>
        <source>no ModelOpt config: detected from weight_scale_2 and the dtypes</source>
        <translation>keine ModelOpt-Konfiguration: an weight_scale_2 und den Datentypen erkannt</translation>
    </message>
    <message>
        <source>%1: quant_method modelopt, quant_algo %2</source>
        <translation>%1: quant_method modelopt, quant_algo %2</translation>
    </message>
    <message>
        <source>%1: quant_algo %2</source>
        <translation>%1: quant_algo %2</translation>
    </message>
    <message>
        <source>%1 says quant_algo %2, %3 says %4</source>
        <translation>%1 nennt quant_algo %2, %3 nennt %4</translation>
    </message>
    <message>
        <source>the config says quant_algo %1, the tensors are %2</source>
        <translation>die Konfiguration nennt quant_algo %1, die Tensoren sind %2</translation>
    </message>
    <message>
        <source>%1 says group_size %2, NVFP4 scales every 16</source>
        <translation>%1 nennt group_size %2, NVFP4 skaliert je 16</translation>
    </message>
    <message>
        <source>weight_scale %1 %2 is not F8_E4M3 [%3, %4]</source>
        <translation>weight_scale %1 %2 ist nicht F8_E4M3 [%3, %4]</translation>
    </message>
    <message>
        <source>%1, but the module holds quantized tensors</source>
        <translation>%1, aber das Modul enthält quantisierte Tensoren</translation>
    </message>
    <message>
        <source>block scale 2^(e - 127)</source>
        <translation>Blockskala 2^(e - 127)</translation>
    </message>
    <message>
        <source>block scale fp8 * weight_scale_2</source>
        <translation>Blockskala fp8 * weight_scale_2</translation>
    </message>
    <message>
        <source>%1 of %2 %3 values are not finite and positive</source>
        <translation>%1 von %2 Werten von %3 sind nicht endlich und positiv</translation>
    </message>
    <message>
        <source>%1 of %2 block scales are 0xFF, NaN in the OCP MX spec</source>
        <translation>%1 von %2 Blockskalen sind 0xFF, NaN laut OCP-MX-Spezifikation</translation>
    </message>
    <message>
        <source>%1 blocks with scale 254 hold codes that overflow to +-inf</source>
        <translation>%1 Blöcke mit Skala 254 enthalten Codes, die zu +-inf überlaufen</translation>
    </message>
    <message>
        <source>%1 of %2 FP8 block scales are NaN or Inf</source>
        <translation>%1 von %2 FP8-Blockskalen sind NaN oder Inf</translation>
    </message>
    <message>
        <source>%1 of %2 FP8 block scales are negative</source>
        <translation>%1 von %2 FP8-Blockskalen sind negativ</translation>
    </message>
</context>
<context>
    <name>qsw::shownText</name>
    <message numerus="yes">
        <source>…(%n characters)…</source>
        <translation>
            <numerusform>…(%n Zeichen)…</numerusform>
            <numerusform>…(%n Zeichen)…</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>qsw::OpenUrlDialog</name>
    <message>
        <source>Open URL</source>
        <translation>URL öffnen</translation>
    </message>
    <message>
        <source>An http(s) URL of a .gguf or .safetensors file or a *.safetensors.index.json, or a Hugging Face repository (ORG/REPO, hf://ORG/REPO@REVISION). Only the headers are read now; a weight&apos;s bytes are fetched when a view needs them.</source>
        <translation>Eine http(s)-URL einer .gguf- oder .safetensors-Datei oder einer *.safetensors.index.json, oder ein Hugging-Face-Repository (ORG/REPO, hf://ORG/REPO@REVISION). Jetzt werden nur die Header gelesen; die Bytes eines Gewichts werden geladen, wenn eine Ansicht sie braucht.</translation>
    </message>
    <message>
        <source>https://… or ORG/REPO</source>
        <translation>https://… oder ORG/REPO</translation>
    </message>
    <message>
        <source>&amp;List Files</source>
        <translation>Dateien &amp;auflisten</translation>
    </message>
    <message>
        <source>List the repository&apos;s files to pick one (a repository opens as a folder does)</source>
        <translation>Die Dateien des Repositorys auflisten, um eine auszuwählen (ein Repository öffnet sich wie ein Ordner)</translation>
    </message>
    <message>
        <source>Listing %1…</source>
        <translation>Liste %1 auf…</translation>
    </message>
    <message>
        <source>%1  (%2)</source>
        <translation>%1  (%2)</translation>
    </message>
    <message numerus="yes">
        <source>%n file(s); pick one, or open the repository as a folder.</source>
        <translation>
            <numerusform>%n Datei; eine auswählen oder das Repository als Ordner öffnen.</numerusform>
            <numerusform>%n Dateien; eine auswählen oder das Repository als Ordner öffnen.</numerusform>
        </translation>
    </message>
</context>
</TS>
