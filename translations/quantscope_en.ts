<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en">
<context>
    <name>qsw::BitMapView</name>
    <message numerus="yes">
        <source>%Ln element(s)</source>
        <translation>
            <numerusform>%Ln element</numerusform>
            <numerusform>%Ln elements</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>qsw::DiffView</name>
    <message numerus="yes">
        <source>&lt;b&gt;%n warning(s)&lt;/b&gt; about the compared weights:</source>
        <translation>
            <numerusform>&lt;b&gt;%n warning&lt;/b&gt; about the compared weights:</numerusform>
            <numerusform>&lt;b&gt;%n warnings&lt;/b&gt; about the compared weights:</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n pair(s) compared</source>
        <translation>
            <numerusform>%n pair compared</numerusform>
            <numerusform>%n pairs compared</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n shape mismatch(es)</source>
        <translation>
            <numerusform>%n shape mismatch</numerusform>
            <numerusform>%n shape mismatches</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln row(s)</source>
        <translation>
            <numerusform>%Ln row</numerusform>
            <numerusform>%Ln rows</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln column(s)</source>
        <translation>
            <numerusform>%Ln column</numerusform>
            <numerusform>%Ln columns</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>qsw::ErrorView</name>
    <message numerus="yes">
        <source>%n of %1 columns each</source>
        <translation>
            <numerusform>%n of %1 columns each</numerusform>
            <numerusform>%n of %1 columns each</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n, columns assigned by g_idx (act-order)</source>
        <translation>
            <numerusform>%n, columns assigned by g_idx (act-order)</numerusform>
            <numerusform>%n, columns assigned by g_idx (act-order)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>qsw::Inspector</name>
    <message numerus="yes">
        <source>%n weight(s), %1</source>
        <translation>
            <numerusform>%n weight, %1</numerusform>
            <numerusform>%n weights, %1</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>qsw::MainWindow</name>
    <message numerus="yes">
        <source>%n layer(s): too many to expand at once; expand the ones you need.</source>
        <translation>
            <numerusform>%n layer: too many to expand at once; expand the ones you need.</numerusform>
            <numerusform>%n layers: too many to expand at once; expand the ones you need.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 (+%n more)</source>
        <translation>
            <numerusform>%1 (+%n more)</numerusform>
            <numerusform>%1 (+%n more)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 (%n shards)</source>
        <translation>
            <numerusform>%1 (%n shard)</numerusform>
            <numerusform>%1 (%n shards)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n tensor(s), </source>
        <translation>
            <numerusform>%n tensor, </numerusform>
            <numerusform>%n tensors, </numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n weight(s)</source>
        <translation>
            <numerusform>%n weight</numerusform>
            <numerusform>%n weights</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 mapped in %n file(s)</source>
        <translation>
            <numerusform>%1 mapped in %n file</numerusform>
            <numerusform>%1 mapped in %n files</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>qsw::MetadataModel</name>
    <message numerus="yes">
        <source>%n item(s): expand the row to browse them</source>
        <translation>
            <numerusform>%n item: expand the row to browse them</numerusform>
            <numerusform>%n items: expand the row to browse them</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>qsw::OpenUrlDialog</name>
    <message numerus="yes">
        <source>%n file(s); pick one, or open the repository as a folder.</source>
        <translation>
            <numerusform>%n file; pick one, or open the repository as a folder.</numerusform>
            <numerusform>%n files; pick one, or open the repository as a folder.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>qsw::PlaygroundView</name>
    <message numerus="yes">
        <source>%n clamped</source>
        <translation>
            <numerusform>%n clamped</numerusform>
            <numerusform>%n clamped</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n group(s) of %1</source>
        <translation>
            <numerusform>%n group of %1</numerusform>
            <numerusform>%n groups of %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n sub-block(s) of %1</source>
        <translation>
            <numerusform>%n sub-block of %1</numerusform>
            <numerusform>%n sub-blocks of %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n block(s) of %1</source>
        <translation>
            <numerusform>%n block of %1</numerusform>
            <numerusform>%n blocks of %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;Codes&lt;/b&gt;: all %1 codes and %n scale(s) reproduce the stored ones of this row</source>
        <translation>
            <numerusform>&lt;b&gt;Codes&lt;/b&gt;: all %1 codes and %n scale reproduce the stored ones of this row</numerusform>
            <numerusform>&lt;b&gt;Codes&lt;/b&gt;: all %1 codes and %n scales reproduce the stored ones of this row</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;Codes&lt;/b&gt;: %1 of %2 codes and %3 of %n scale(s) reproduce the stored ones of this row</source>
        <translation>
            <numerusform>&lt;b&gt;Codes&lt;/b&gt;: %1 of %2 codes and %3 of %n scale reproduce the stored ones of this row</numerusform>
            <numerusform>&lt;b&gt;Codes&lt;/b&gt;: %1 of %2 codes and %3 of %n scales reproduce the stored ones of this row</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>qsw::PlaygroundWords</name>
    <message numerus="yes">
        <source>… %n more word(s)</source>
        <translation>
            <numerusform>… %n more word</numerusform>
            <numerusform>… %n more words</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>qsw::RecipeView</name>
    <message numerus="yes">
        <source>Importance matrix %1 (%2, %n entries)</source>
        <translation>
            <numerusform>Importance matrix %1 (%2, %n entry)</numerusform>
            <numerusform>Importance matrix %1 (%2, %n entries)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n tensor(s) differ in type (outlined), %1 on both sides</source>
        <translation>
            <numerusform>%n tensor differ in type (outlined), %1 on both sides</numerusform>
            <numerusform>%n tensors differ in type (outlined), %1 on both sides</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Summarizing the recipe of %n weight(s)…</source>
        <translation>
            <numerusform>Summarizing the recipe of %n weight…</numerusform>
            <numerusform>Summarizing the recipe of %n weights…</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>qsw::ScalesView</name>
    <message numerus="yes">
        <source>%Ln group(s)</source>
        <translation>
            <numerusform>%Ln group</numerusform>
            <numerusform>%Ln groups</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln row(s)</source>
        <translation>
            <numerusform>%Ln row</numerusform>
            <numerusform>%Ln rows</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>qsw::VerifyView</name>
    <message numerus="yes">
        <source>Checking %n weight(s)…</source>
        <translation>
            <numerusform>Checking %n weight…</numerusform>
            <numerusform>Checking %n weights…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Checked the layout, sizes, scales and codes of %n quantized weight(s) (%1): no errors, no warnings.</source>
        <translation>
            <numerusform>Checked the layout, sizes, scales and codes of %n quantized weight (%1): no errors, no warnings.</numerusform>
            <numerusform>Checked the layout, sizes, scales and codes of %n quantized weights (%1): no errors, no warnings.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n weight(s) checked: </source>
        <translation>
            <numerusform>%n weight checked: </numerusform>
            <numerusform>%n weights checked: </numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source> %n quantized weight(s) not covered by any check.</source>
        <translation>
            <numerusform> %n quantized weight not covered by any check.</numerusform>
            <numerusform> %n quantized weights not covered by any check.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln error(s)</source>
        <translation>
            <numerusform>%Ln error</numerusform>
            <numerusform>%Ln errors</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln warning(s).</source>
        <translation>
            <numerusform>%Ln warning.</numerusform>
            <numerusform>%Ln warnings.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>qsw::WeightTreeModel</name>
    <message numerus="yes">
        <source>%n weight(s) in %1</source>
        <translation>
            <numerusform>%n weight in %1</numerusform>
            <numerusform>%n weights in %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n of them with notes from detection</source>
        <translation>
            <numerusform>%n of them with notes from detection</numerusform>
            <numerusform>%n of them with notes from detection</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>qsw::shownText</name>
    <message numerus="yes">
        <source>…(%n characters)…</source>
        <translation>
            <numerusform>…(%n character)…</numerusform>
            <numerusform>…(%n characters)…</numerusform>
        </translation>
    </message>
</context>
</TS>
